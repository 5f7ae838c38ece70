// Process groups: every shell this extension starts leads its own group, so one signal reaches the
// shell, its pipelines and its background children together, and never the extension host's group
// (oh-my-pi #4866 killed its own host that way). Kill = SIGTERM to the group, SIGKILL after a grace,
// and the caller learns it is over from the leader's exit event, not from a guess.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';

export const DEFAULT_KILL_GRACE_MS = 1000;

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = osConstants.signals as Record<string, number>;

/** `SIGKILL` → 9; undefined for unknown names. */
export function signalNumber(name: string): number | undefined {
  return SIGNAL_NUMBERS[name];
}

/** 9 → `SIGKILL`; undefined for numbers no signal has. */
export function signalName(num: number): string | undefined {
  for (const [name, value] of Object.entries(SIGNAL_NUMBERS)) if (value === num) return name;
  return undefined;
}

export interface ExitStatus {
  /** The code, or 128+n for a signal; undefined when neither is known. */
  exitCode: number | undefined;
  signal?: string;
}

/** Node's `(code, signal)` pair as a shell would report it: SIGKILL → 137, name kept. */
export function exitStatusOf(code: number | null, signal: string | null): ExitStatus {
  if (signal) {
    const num = signalNumber(signal);
    return { exitCode: num === undefined ? undefined : 128 + num, signal };
  }
  if (code === null) return { exitCode: undefined };
  return { exitCode: code, ...signalOfShellStatus(code) };
}

/**
 * A shell reports a child killed by signal n as status 128+n. Keep the name for those, so a
 * `kill -9` inside a persistent shell reads the same as one seen by Node directly. (An explicit
 * `exit 137` is indistinguishable; shells have the same ambiguity.)
 */
export function signalOfShellStatus(code: number): { signal?: string } {
  if (code <= 128 || code > 128 + 64) return {};
  const name = signalName(code - 128);
  return name ? { signal: name } : {};
}

/** `spawn` in a new process group (detached = setsid on POSIX), never a console window on Windows. */
export function spawnInGroup(file: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return spawn(file, [...args], { ...options, detached: process.platform !== 'win32', windowsHide: true });
}

/**
 * True while a running process is still in group `pgid`. On Linux zombies do not count (see
 * `pidAlive`); elsewhere the kernel's answer to signal 0 is all there is.
 */
export function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.pgid === pgid && stat.state !== 'Z') return true;
  }
  return false;
}

/** Sends `signal` to the whole group; false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    if (process.platform === 'win32') process.kill(pgid, signal);
    else process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone: the point of the call.
  }
}

/** The numeric entries of /proc (every pid), or none where it cannot be read. */
function procPids(): string[] {
  try {
    return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
}

/**
 * Every live descendant of `root` (children first-level, then theirs…), read from /proc. A command
 * may move a child into a group of its own (`setsid`, a shell with job control); signalling the
 * shell's group would miss it, so kills also signal these pids. Empty where /proc is absent.
 */
export function descendantsOf(root: number): number[] {
  if (process.platform !== 'linux') return [];
  const children = new Map<number, number[]>();
  for (const entry of procPids()) {
    const stat = readStat(Number(entry));
    if (!stat || stat.state === 'Z') continue;
    const list = children.get(stat.ppid);
    if (list) list.push(stat.pid);
    else children.set(stat.ppid, [stat.pid]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgid: number;
  /** Clock ticks since boot when it started (field 22). */
  start: number;
}

/** Parses /proc/<pid>/stat; the command name may contain spaces and parentheses, so cut at the last `)`. */
export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  return { pid, state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]), start: Number(fields[19]) };
}

/**
 * True while `pid` runs. A zombie is not running: where PID 1 does not reap orphans (some container
 * inits), a killed grandchild stays a zombie forever although it is dead.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = readStat(pid);
  return stat === undefined ? process.platform !== 'linux' : stat.state !== 'Z';
}

export interface KillOptions {
  /** Time between SIGTERM and SIGKILL (default 1000 ms). */
  graceMs?: number;
}

/**
 * Kills `child`'s group: SIGTERM to the group and to descendants that left it, then SIGKILL to
 * whatever remains once the grace is over. Resolves when the leader's `exit` event has been seen and
 * the group is empty (or after the SIGKILL round, which cannot be ignored). Idempotent.
 */
export function killProcessTree(child: ChildProcess, options: KillOptions = {}): Promise<void> {
  const graceMs = options.graceMs ?? DEFAULT_KILL_GRACE_MS;
  const pid = child.pid;
  if (pid === undefined) return Promise.resolve();
  // A second kill while one is under way joins it (a second SIGTERM would cut short the EXIT traps
  // the first lets run; see killGroupAndWait), unless it asks for the end sooner than the first.
  const deadline = Date.now() + graceMs;
  const running = killsUnderWay.get(child);
  if (running && running.deadline <= deadline) return running.done;
  const exited = child.exitCode !== null || child.signalCode !== null;
  const exitPromise = exited
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
      });
  const done = killGroupAndWait(pid, exitPromise, graceMs).finally(() => {
    if (killsUnderWay.get(child)?.done === done) killsUnderWay.delete(child);
  });
  killsUnderWay.set(child, { deadline, done });
  return done;
}

/** The kills of killProcessTree still under way, by child. */
const killsUnderWay = new WeakMap<ChildProcess, { deadline: number; done: Promise<void> }>();

/** The same for a group whose leader is not our child (a node-pty process, a lingering group). */
export async function killGroupAndWait(pgid: number, leaderExit: Promise<void>, graceMs: number): Promise<void> {
  const descendants = descendantsOf(pgid);
  // One SIGTERM per process: the group's, and a pid's own only where it left the group. bash takes a
  // second SIGTERM that comes before it has handled the first as a hung shell and dies at once, so
  // its EXIT trap (a script's cleanup, pyenv's lock) would not run.
  const strays = descendants.filter((pid) => readStat(pid)?.pgid !== pgid);
  signalGroup(pgid, 'SIGTERM');
  for (const pid of strays) signalPid(pid, 'SIGTERM');
  // A stopped process (`kill -STOP $$`) acts on SIGTERM only once it runs again.
  signalGroup(pgid, 'SIGCONT');
  for (const pid of strays) signalPid(pid, 'SIGCONT');

  const deadline = Date.now() + graceMs;
  let leaderGone = false;
  void leaderExit.then(() => {
    leaderGone = true;
  });
  // Poll the group (and the strays) rather than trusting the leader alone: a background child that
  // ignores SIGTERM keeps the group alive after the shell has died.
  while (Date.now() < deadline) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `leaderGone` is set by the callback above while we await.
    if (leaderGone && !groupAlive(pgid) && !descendants.some(pidAlive)) return;
    await delay(Math.min(20, Math.max(1, deadline - Date.now())));
  }
  const late = descendantsOf(pgid);
  signalGroup(pgid, 'SIGKILL');
  for (const pid of [...descendants, ...late]) signalPid(pid, 'SIGKILL');
  // SIGKILL cannot be caught; the exit event follows as soon as the kernel has torn the leader down.
  // The fallback timer is cleared at once: left armed, it would keep a CLI alive for `graceMs`.
  let fallback: NodeJS.Timeout | undefined;
  await Promise.race([leaderExit, new Promise<void>((resolve) => (fallback = setTimeout(resolve, graceMs)))]);
  clearTimeout(fallback);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A mark a process tree carries in its environment: `name=value`. */
export interface EnvMark {
  name: string;
  value: string;
}

/**
 * Live processes whose environment carries `name=value`, read from /proc/<pid>/environ. A process
 * that escaped its group and was re-parented to init (`setsid cmd &` in a shell that then exits) is no
 * longer anyone's descendant, but it still carries the environment it was started with — which is how
 * a marked run finds everything it started. Empty where /proc is absent.
 */
export function processesWithEnv(name: string, value: string): number[] {
  return processesWithAnyEnv([{ name, value }]);
}

/** Live processes carrying any of `marks`: one pass over /proc, each environment read once. */
export function processesWithAnyEnv(marks: readonly EnvMark[]): number[] {
  if (process.platform !== 'linux' || marks.length === 0) return [];
  const needles = marks.map(({ name, value }) => Buffer.from(`${name}=${value}\0`));
  const inner = needles.map((needle) => Buffer.concat([Buffer.from([0]), needle]));
  const out: number[] = [];
  for (const entry of procPids()) {
    if (Number(entry) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    // environ is NUL-separated: the entry starts the file or follows a NUL.
    const marked = needles.some((needle, i) => environ.subarray(0, needle.length).equals(needle) || environ.includes(inner[i]));
    if (!marked) continue;
    if (readStat(Number(entry))?.state === 'Z') continue;
    out.push(Number(entry));
  }
  return out;
}

/** SIGKILL to every live process carrying `name=value` (see processesWithEnv); returns their pids. */
export function killByEnv(name: string, value: string): number[] {
  return killByMarks([{ name, value }]);
}

/** SIGKILL to every live process carrying any of `marks`; returns their pids. */
export function killByMarks(marks: readonly EnvMark[]): number[] {
  const pids = processesWithAnyEnv(marks);
  for (const pid of pids) signalPid(pid, 'SIGKILL');
  // A process caught mid-exec shows no environment; one more pass finds it once exec is done.
  const late = processesWithAnyEnv(marks).filter((pid) => !pids.includes(pid));
  for (const pid of late) signalPid(pid, 'SIGKILL');
  return [...pids, ...late];
}
