// The launcher stages as one compiled program (native/sandbox-launch.c, built into dist/ by
// `npm run build` where a C compiler is found). A sandboxed command otherwise starts through a
// shell that enters its cgroups, a bash that closes descriptors and opens the seccomp filter,
// nsenter, bubblewrap and perl for the Landlock ruleset: on a slow machine each exec is several
// milliseconds. With the program it is the program, bubblewrap and the program again. The steps,
// their order, their messages and exit codes are those of the scripts (launcher.ts, landlock.ts,
// limits.ts), which stay the route where the program is missing; both routes run the same tests.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { networkStateLine, NO_NETWORK, type LaunchSpec } from '../launcher';

export const NATIVE_LAUNCH_NAME = 'agent-bash-launch';
/** `AGENT_BASH_NATIVE_LAUNCH=off` takes the script route (tests of both routes; no path can be given). */
export const NATIVE_LAUNCH_ENV = 'AGENT_BASH_NATIVE_LAUNCH';

export interface NativeLaunch {
  /** Absolute path of the program. */
  path: string;
  /** The kernel's Landlock ABI as the program asked it (0: none). */
  abi: number;
}

let found: { key: string; value: NativeLaunch | undefined } | undefined;

/** The compiled launcher beside the bundle (dist/) or in the checkout's dist/ (compiled tests), once it answered. */
export function nativeLaunch(): NativeLaunch | undefined {
  const key = process.env[NATIVE_LAUNCH_ENV] ?? '';
  if (found && found.key === key) return found.value;
  found = { key, value: key === 'off' || process.platform !== 'linux' ? undefined : locate() };
  return found.value;
}

function locate(): NativeLaunch | undefined {
  const candidates = [path.join(__dirname, NATIVE_LAUNCH_NAME)];
  for (let dir = __dirname, i = 0; i < 6; i++, dir = path.dirname(dir)) candidates.push(path.join(dir, 'dist', NATIVE_LAUNCH_NAME));
  for (const file of candidates) {
    if (!existsSync(file)) continue;
    const r = spawnSync(file, ['abi'], { encoding: 'utf8', timeout: 10_000, env: {} });
    const abi = Number(r.stdout);
    if (r.status === 0 && Number.isInteger(abi) && abi >= 0) return { path: file, abi };
  }
  return undefined;
}

/** The host-side argv: cgroups, descriptors, filter and network, then bubblewrap (`spec.bwrapArgv`). */
export function nativeOuterArgv(native: NativeLaunch, spec: LaunchSpec, cgroupProcs: readonly string[]): string[] {
  const net = spec.network;
  const netArg = net.kind === 'enter' ? networkStateLine(net.options).trim() : net.kind === 'wait' ? `wait:${net.file}` : NO_NETWORK;
  return [native.path, 'outer', spec.keep.join(' '), spec.filterFile, String(spec.filterFd), netArg, String(cgroupProcs.length), ...cgroupProcs, '--', ...spec.bwrapArgv];
}

/** The first argv words inside the sandbox: the process limit (0: none) and the Landlock ruleset (access 0: none). */
export function nativeInnerPrefix(native: NativeLaunch, nproc: number, landlock: { access: number; folders: readonly string[] } | undefined): string[] {
  const folders = landlock?.folders ?? [];
  return [native.path, 'inner', String(Math.max(0, nproc)), String(landlock?.access ?? 0), String(folders.length), ...folders, '--'];
}
