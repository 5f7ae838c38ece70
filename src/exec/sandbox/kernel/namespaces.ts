// The namespaces of a sandboxed command beyond mount, PID and network (bwrapArgs.ts, sharedNetwork.ts).
// A user namespace always, root included: without one, root is confined by dropped capabilities
// only, and what is checked against the uid rather than capabilities stays the host's (the uid's
// kernel keyring, writable sysctls under /proc/sys). bubblewrap maps the caller's uid and gid to
// themselves inside (root stays uid 0 inside, mapped to root outside; any other user keeps its
// own uid), so files the command writes belong to the caller as before; every capability is
// dropped inside as well (`--cap-drop ALL`). IPC, UTS and (where the kernel has it) cgroup get
// namespaces of their own, and `/proc/sys` is mounted read-only whatever bubblewrap decides.
// `--new-session` detaches the command from the caller's terminal, so it cannot type into it
// (TIOCSTI, also refused by the seccomp filter); a PTY run keeps the terminal made for it.

/** bubblewrap's flags for the namespaces above; `terminal`: stdio is a PTY of the command's own. */
export function namespaceArgs(opts: { terminal?: boolean } = {}): string[] {
  return ['--unshare-user', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', ...(opts.terminal ? [] : ['--new-session'])];
}

/**
 * After `--proc /proc`: its sysctls read-only (bubblewrap covers them only when it sees fit), and
 * the SysRq trigger where the kernel has one (uid 0 may write it without any capability).
 */
export const PROC_SYS_READ_ONLY: readonly string[] = ['--ro-bind', '/proc/sys', '/proc/sys', '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger'];

/** The flags the availability probe starts `bwrap … true` with: a machine without them cannot sandbox. */
export const PROBE_NAMESPACE_ARGS: readonly string[] = ['--unshare-user', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--unshare-pid'];
