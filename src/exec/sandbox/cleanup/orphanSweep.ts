// Containment where there is no PID namespace (no bubblewrap, no user namespaces): every process
// carries the environment mark `AGENT_BASH_OWNER=<pid>:<start time>` of the extension host or CLI
// that started it. Escapees (`setsid`, double forks) keep it after leaving their group, so at start
// the next host kills every marked process whose owner is gone (a SIGKILLed host could not).
import { readdirSync, readFileSync } from 'node:fs';

export const OWNER_ENV = 'AGENT_BASH_OWNER';

/** Field 22 of /proc/<pid>/stat (start time in clock ticks): with the pid, unique for the boot. */
function startTime(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** This process's owner mark (`<pid>:<start time>`). */
export function ownerMark(pid: number = process.pid): string {
  return `${pid}:${startTime(pid) ?? '0'}`;
}

/** True while the process named by `mark` still runs (the same one: the start time must match). */
export function ownerAlive(mark: string): boolean {
  const [pid, start] = mark.split(':');
  return startTime(Number(pid)) === start;
}

/**
 * SIGKILL to every live process whose owner mark names a process that is gone; returns their pids.
 * Linux only (elsewhere there is no /proc to read, and the list is empty).
 */
export function killOrphans(): number[] {
  if (process.platform !== 'linux') return [];
  const prefix = Buffer.from(`${OWNER_ENV}=`);
  const killed: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    const at = environ.indexOf(prefix);
    if (at < 0 || (at > 0 && environ[at - 1] !== 0)) continue;
    const end = environ.indexOf(0, at);
    const mark = environ.subarray(at + prefix.length, end < 0 ? undefined : end).toString('utf8');
    if (ownerAlive(mark)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // Gone already.
    }
  }
  return killed;
}
