// Can a persistent shell still answer? Read from /proc (Linux) while a call runs, so a session that a
// command broke (`kill -STOP $$`, a wrapper builtin redefined or disabled) is noticed within a second
// instead of when the call's timeout fires. Elsewhere (no /proc) the answer is always 'unknown' and
// only the timeout ends such a call.
import { readFileSync, readlinkSync } from 'node:fs';

/**
 * - `stopped`: the shell is stopped (SIGSTOP/SIGTSTP) and runs nothing until someone continues it.
 * - `idle`: the shell is blocked reading its script from our stdin pipe (through any descriptor), i.e.
 *   it has run everything we sent; if the call's answer has not arrived by then, it never will.
 * - `busy`: anything else (running a builtin, waiting for a child, reading some other file).
 */
export type ShellState = 'gone' | 'stopped' | 'idle' | 'busy' | 'unknown';

/** The number of `read` on the architectures Node runs on with Linux. */
const READ_SYSCALL: Partial<Record<NodeJS.Architecture, number>> = { x64: 0, arm64: 63, arm: 3, ia32: 3, riscv64: 63, ppc64: 3, s390x: 3 };

/** What fd 0 of `pid` is (`socket:[123]`, `pipe:[456]`), to recognise our pipe later; undefined off Linux. */
export function stdinIdentity(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/0`);
  } catch {
    return undefined;
  }
}

/** The state of shell `pid` whose script pipe is `stdin` (from `stdinIdentity` at spawn). */
export function shellState(pid: number, stdin: string | undefined): ShellState {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 'gone';
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
  if (state === 'T') return 'stopped';
  if (state === 'Z' || state === 'X') return 'gone';
  const read = READ_SYSCALL[process.arch];
  if (stdin === undefined || read === undefined) return 'unknown';
  try {
    // `<nr> <arg0> …` while blocked in a system call, `running` otherwise. arg0 of read is the fd.
    const [nr, fd] = readFileSync(`/proc/${pid}/syscall`, 'utf8').split(' ');
    if (Number(nr) !== read) return 'busy';
    // fd 0 is /dev/null inside a call; it is our pipe again only once the call's wrapper is done. A
    // read of bash's saved copy of it (a trap's `read -u 10`) waits for the next call's script: idle too.
    return readlinkSync(`/proc/${pid}/fd/${Number(fd)}`) === stdin ? 'idle' : 'busy';
  } catch {
    return 'unknown';
  }
}
