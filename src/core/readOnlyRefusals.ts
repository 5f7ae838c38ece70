// What the read-only fence refused an auto-approved read, read back from its output, and the one
// line that tells the agent what happened and what to do (exec/sandbox/readOnly/ sets the fence).
// The kernel answers a refused write, exec, read outside or connect with EACCES, which programs
// print as `Permission denied` (coreutils, bash, curl), `EACCES` (Node) or `[Errno 13]` (Python).

/** Said when an auto-approved read runs where no fence can hold it (details and Explain). */
export const READ_ONLY_NO_SANDBOX = 'no OS sandbox runs this command';

const REFUSED_LINE = /permission denied|\bEACCES\b|\[Errno 13\]/i;
const QUOTED = /['‘"`]([^'’"`\n]+)['’"`]/g;
/** `bash: line 1: keep: Permission denied`, `tee: out: Permission denied`: the word before the reason. */
const BARE = /(?:^|:\s)([^\s:'"‘’]+): [Pp]ermission denied/g;
const MAX_NAMED = 5;

/** The paths (or programs, or addresses) the fence refused, as the program named them; at most a few. */
export function fenceRefusals(output: string): string[] {
  const found = new Set<string>();
  for (const line of output.split('\n')) {
    if (!REFUSED_LINE.test(line)) continue;
    const quoted = [...line.matchAll(QUOTED)].map((m) => m[1]);
    const named = quoted.length > 0 ? quoted : [...line.matchAll(BARE)].map((m) => m[1]);
    for (const n of named.length > 0 ? named : [line.trim().slice(0, 120)]) found.add(n);
    if (found.size >= MAX_NAMED) break;
  }
  return [...found].slice(0, MAX_NAMED);
}

/** The one line an agent can act on. */
export function readOnlyRefusalNotice(refused: readonly string[]): string {
  return (
    `[read-only] This ran read-only because it was auto-approved as a read: the kernel refused ${refused.map((r) => `\`${r}\``).join(', ')} ` +
    '(a write, a program the line does not name, a read outside the workspace, or a connection). Nothing outside its scratch folder was changed. ' +
    'If it needs to write, run another program or use the network, ask the person to approve it: send it again with `sandbox: "write"`.'
  );
}
