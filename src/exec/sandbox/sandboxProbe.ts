// Can this machine sandbox? bubblewrap must be on PATH and able to make the namespaces we use (user
// namespaces may be disabled by the kernel or a container), and socat must exist for the network
// bridge. Probed once per PATH by starting `bwrap … true` for real: a binary that exists but cannot
// create namespaces is as unavailable as a missing one.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';
import { PROBE_NAMESPACE_ARGS } from './kernel/namespaces';
import { hostProgram, trustedSearchPath } from '../hostPrograms';

export interface SandboxSupport {
  /** Absolute path of bwrap when found. */
  bwrap?: string;
  /** Absolute path of socat when found. */
  socat?: string;
  /** Absolute path of nsenter when found: commands then share one network namespace (sharedNetwork.ts); without it they have no network. */
  nsenter?: string;
  /** Absolute path of bash: the launcher of every sandboxed command (launcher.ts). */
  bash?: string;
  /** PID namespace + die-with-parent work (kernel containment). */
  contain: boolean;
  /** The filesystem/network sandbox works (bwrap and socat both usable). */
  sandbox: boolean;
  /** Why not, for messages: what to install or what failed. */
  problem?: string;
}

export const INSTALL_HINT = 'apt-get install bubblewrap socat';

/** `name` found in the directories of `pathVar`, as an absolute path (tests; the host's own helpers come from hostPrograms.ts). */
export function findOnPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; the next directory.
    }
  }
  return undefined;
}

const cache = new Map<string, SandboxSupport>();

/** The support on this machine for `pathVar` (default: this process's PATH; its trusted folders only, hostPrograms.ts); cached. */
export function probeSandbox(pathVar: string | undefined = process.env.PATH): SandboxSupport {
  const key = trustedSearchPath(pathVar).join(path.delimiter);
  let found = cache.get(key);
  if (!found) {
    found = probeUncached(pathVar);
    cache.set(key, found);
  }
  return found;
}

function probeUncached(pathVar: string | undefined): SandboxSupport {
  if (process.platform !== 'linux') {
    return { contain: false, sandbox: false, problem: `the OS sandbox needs Linux with bubblewrap (this is ${process.platform})` };
  }
  const bwrap = hostProgram('bwrap', pathVar);
  const socat = hostProgram('socat', pathVar);
  if (!bwrap) return { ...(socat ? { socat } : {}), contain: false, sandbox: false, problem: `bubblewrap (bwrap) is not installed: ${INSTALL_HINT}` };
  const run = spawnSync(bwrap, ['--dev-bind', '/', '/', '--unshare-pid', '--die-with-parent', '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 10_000,
  });
  if (run.status !== 0) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- spawnSync returns stderr null when the spawn itself fails (EACCES, ENOENT)
    const why = (run.stderr?.toString('utf8').trim() || run.error?.message || `exit ${run.status}`).split('\n')[0];
    return { bwrap, ...(socat ? { socat } : {}), contain: false, sandbox: false, problem: `bubblewrap cannot create namespaces here (${why}); user namespaces may be disabled` };
  }
  if (!socat) return { bwrap, contain: true, sandbox: false, problem: `socat is not installed: ${INSTALL_HINT}` };
  const bash = hostProgram('bash', pathVar);
  if (!bash) return { bwrap, socat, contain: true, sandbox: false, problem: 'bash is not installed (the sandbox starts every command through it)' };
  // The sandbox needs a user namespace (root included) and the others of namespaces.ts.
  const userns = spawnSync(bwrap, ['--ro-bind', '/', '/', ...PROBE_NAMESPACE_ARGS, '--die-with-parent', '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 10_000,
  });
  if (userns.status !== 0) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    const why = (userns.stderr?.toString('utf8').trim() || userns.error?.message || `exit ${userns.status}`).split('\n')[0];
    return { bwrap, socat, contain: true, sandbox: false, problem: `bubblewrap cannot create a user namespace here (${why}); the sandbox needs one, also as root` };
  }
  const nsenter = hostProgram('nsenter', pathVar);
  return { bwrap, socat, bash, ...(nsenter ? { nsenter } : {}), contain: true, sandbox: true };
}
