// Where the read-only fence (readOnlyFence.ts) can hold an auto-approved read, and why not: one
// seam with a capability report, so that another platform's confinement can fill it later
// (docs/SANDBOX.md maps the fence onto a macOS Seatbelt profile). On Linux it needs the sandbox
// (bubblewrap: the network namespace, the secret masks), the compiled launcher and Landlock ABI 4.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { nativeLaunch, type NativeLaunch } from '../kernel/nativeLaunch';

/** The fence needs TCP connect/bind to be refusable (Landlock ABI 4, Linux 6.7); native/readonly-fence.h RO_MIN_ABI. */
export const FENCE_MIN_ABI = 4;
/** The builtin a persistent shell loads (native/readonly-builtin.c), beside the launcher. */
export const FENCE_BUILTIN_FILE = 'agent-bash-readonly.so';
export const FENCE_BUILTIN_NAME = 'agent_bash_readonly';

export interface FenceSupport {
  enforced: boolean;
  why?: string;
  /** The launcher whose `readonly` stage fences a one-shot run. */
  launch?: NativeLaunch;
  /** The builtin that fences a persistent shell's subshell, where it was built. */
  builtin?: string;
}

/** The fence on this machine, for a call whose sandbox level is `level`. */
export function fenceSupport(level: 'sandboxed' | 'contained' | 'plain', platform: NodeJS.Platform = process.platform): FenceSupport {
  if (platform === 'darwin') return { enforced: false, why: 'read-only not enforced on macOS yet (docs/SANDBOX.md: the Seatbelt mapping)' };
  if (platform !== 'linux') return { enforced: false, why: `read-only not enforced on ${platform}` };
  if (level !== 'sandboxed') return { enforced: false, why: level === 'contained' ? 'read-only not enforced: the OS sandbox is off for this command' : 'read-only not enforced: no OS sandbox here (bubblewrap)' };
  const launch = nativeLaunch();
  if (!launch) return { enforced: false, why: 'read-only not enforced: the compiled launcher (dist/agent-bash-launch) is missing; it is built where a C compiler is' };
  if (launch.abi < FENCE_MIN_ABI) return { enforced: false, why: `read-only not enforced: the kernel's Landlock ABI is ${launch.abi} (the fence needs ${FENCE_MIN_ABI}, Linux 6.7)` };
  const builtin = path.join(path.dirname(launch.path), FENCE_BUILTIN_FILE);
  return { enforced: true, launch, ...(existsSync(builtin) ? { builtin } : {}) };
}
