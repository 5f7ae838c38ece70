// What every sandboxed spawn actually starts: a short bash script (never the command's text: the
// command stays the argv tail) that
//   1. closes every descriptor but stdio and those passed on purpose (a host process may hold
//      descriptors without close-on-exec — inherited from its own parent — and a spawned child
//      inherits them all; neither Node nor bubblewrap closes them). bash, because only it can name a
//      descriptor above 9;
//   2. opens the seccomp filter (seccompFilter.ts) at the descriptor bubblewrap reads it from;
//   3. joins the shared network namespace (sharedNetwork.ts): at once when it already serves, or
//      after waiting for it while it starts (the runtime writes its `nsenter` options, or `none`,
//      to a state file) — or, where it cannot serve, runs the command with no network at all.
// So every route (one-shot, persistent shell, PTY, background job, the VS Code terminals' bridge
// process, the CLI and the MCP server, first call or later) runs under the same filter: none has
// a network bridge of its own that would need a unix socket inside.

/** How the command gets its network. */
export type LauncherNetwork =
  /** The `nsenter` options that enter the shared namespace now. */
  | { kind: 'enter'; options: string[] }
  /** The shared namespace is starting: wait until `file` holds its options (or `none`). */
  | { kind: 'wait'; file: string }
  /** No network namespace to join: loopback only. */
  | { kind: 'none' };

/** What the state file says when the shared namespace cannot serve. */
export const NO_NETWORK = 'none';

/**
 * Polls of the state file (2 ms sleep each, plus the sleep's own start): more than the shared
 * namespace's start may take (sharedNetwork.ts), after which the command runs without network.
 */
const WAIT_POLLS = 3000;

// `--norc`: a non-interactive bash whose stdin is a socket (Node's pipes are socketpairs) would
// otherwise read ~/.bashrc, as for ssh.
// $0: descriptors above 2 to keep; $1: the filter file; $2: its descriptor; $3: the network
// (enter:OPTIONS | wait:FILE | none); $4: nsenter; $5: sleep; $6…: bwrap and its arguments. It
// runs with an empty environment and names every program by its absolute path (sandboxEnv.ts).
const SCRIPT = [
  'k=" 0 1 2 $0 "',
  'for f in /proc/self/fd/*; do n=${f##*/}; case $k in *" $n "*) ;; *) { exec {n}>&-; } 2>/dev/null;; esac; done',
  'eval "exec $2<\\"\\$1\\"" || exit 126',
  'net=$3 enter=$4 s=$5',
  'shift 5',
  'case $net in wait:*)',
  '  f=${net#wait:} net=none i=0',
  `  while [ $i -lt ${WAIT_POLLS} ]; do`,
  '    if [ -s "$f" ] && read -r o <"$f"; then net=$o; break; fi',
  '    "$s" 0.002; i=$((i+1))',
  '  done;;',
  'esac',
  'case $net in',
  '  enter:*) set -f; o=(${net#enter:}); exec "$enter" "${o[@]}" -- "$@";;',
  '  *) b=$1; shift; exec "$b" --unshare-net "$@";;',
  'esac',
].join('\n');

export interface LaunchSpec {
  bash: string;
  nsenter: string;
  /** Absolute path of `sleep` (the wait's pause). */
  sleep: string;
  /** Descriptors above 2 the spawn passes on purpose (a persistent shell's status pipe). */
  keep: number[];
  filterFile: string;
  /** Where bubblewrap reads the filter (`--seccomp FD`). */
  filterFd: number;
  network: LauncherNetwork;
  /** `bwrap` and its arguments, the command's argv last. */
  bwrapArgv: string[];
}

/** What the state file holds for `options` (one line). */
export function networkStateLine(options: readonly string[] | undefined): string {
  return options ? `enter:${options.join(' ')}\n` : `${NO_NETWORK}\n`;
}

/** `[file, ...args]` of the launcher for `spec`. */
export function launcherArgv(spec: LaunchSpec): string[] {
  const net = spec.network;
  const netArg = net.kind === 'enter' ? networkStateLine(net.options).trim() : net.kind === 'wait' ? `wait:${net.file}` : NO_NETWORK;
  return [spec.bash, '--norc', '--noprofile', '-c', SCRIPT, spec.keep.join(' '), spec.filterFile, String(spec.filterFd), netArg, spec.nsenter, spec.sleep, ...spec.bwrapArgv];
}
