// What earlier calls of a persistent shell left running, found from /proc (Linux) before the next call
// starts, so nothing of theirs meets it: a background subshell keeps bash's saved copies of the script
// and status pipes (a fork keeps every descriptor, close-on-exec or not) and could read the next call's
// script or stop the shell. Every process not there when the shell became ready is a leftover when it
// - descends from the shell's launcher (inside the sandbox's PID namespace an orphan is adopted by the
//   namespace's init, a descendant too: `setsid -f`, double forks and `nohup … &` stay in the tree),
// - or carries the shell's mark in its environment (exported, readonly, by the shell itself: what
//   escaped the tree outside a PID namespace),
// - or holds a descriptor of the shell's control pipes (whatever else it did to its environment).
// The last two only where the shell has no PID namespace of its own, and only for processes started
// after the launcher whose parent is older than it (an escapee is adopted by init or a subreaper; once
// it is killed, its own children are adopted in turn and found by the kill loop's next pass).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readStat, type ProcStat } from './processTree';

type Stat = ProcStat;

function allStats(): Stat[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: Stat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const s = readStat(Number(entry));
    if (s && s.state !== 'Z' && s.state !== 'X') out.push(s);
  }
  return out;
}

/** The children of `pid` (all its threads'), from /proc/<pid>/task/<tid>/children. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const word of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) if (/^\d+$/.test(word)) out.push(Number(word));
    } catch {
      // The thread ended.
    }
  }
  return out;
}

/** Not a zombie (a killed leftover waiting to be reaped is gone for our purpose). */
function isRunning(pid: number): boolean {
  const s = readStat(pid);
  return s !== undefined && s.state !== 'Z' && s.state !== 'X';
}

function fdLink(pid: number, fd: number | string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * The shell itself below its launcher (`root`): the deepest process down the tree whose stdin is still
 * our script pipe (`stdin`, as `stdinIdentity` read it). Outside the sandbox that is `root`; inside, the
 * bash two or three levels down in the PID namespace. Undefined off Linux or when nothing matches.
 */
export function innerShellPid(root: number, stdin: string | undefined): number | undefined {
  if (stdin === undefined || fdLink(root, 0) !== stdin) return undefined;
  let pid = root;
  for (let depth = 0; depth < 8; depth++) {
    const next = childrenOf(pid).find((child) => fdLink(child, 0) === stdin);
    if (next === undefined) return pid;
    pid = next;
  }
  return pid;
}

/** What the shell had when it became ready: never leftovers. */
export interface ShellBaseline {
  /** The launcher (the spawned process). */
  root: number;
  /** The launcher's start time: only processes started later can be leftovers. */
  rootStart: number;
  /** The launcher and every descendant it had then. */
  own: ReadonlySet<number>;
  /** The shell runs in a PID namespace of its own: every orphan stays in the launcher's tree. */
  namespaced: boolean;
}

/** The baseline of a shell that is ready now; undefined off Linux. */
export function shellBaseline(root: number, shell: number | undefined): ShellBaseline | undefined {
  const stats = allStats();
  const rootStat = stats.find((s) => s.pid === root);
  if (!rootStat) return undefined;
  const ns = (pid: number | string): string | undefined => {
    try {
      return readlinkSync(`/proc/${pid}/ns/pid`);
    } catch {
      return undefined;
    }
  };
  const inner = shell === undefined ? undefined : ns(shell);
  return { root, rootStart: rootStat.start, own: new Set([root, ...descendants(root, stats)]), namespaced: inner !== undefined && inner !== ns('self') };
}

/** The descendants of `root` read down the tree (its `children` files): a few reads, not a pass over /proc. */
function treeBelow(root: number): number[] {
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0 && out.length < 100_000) {
    for (const child of childrenOf(queue.shift() as number)) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function descendants(root: number, stats: readonly Stat[]): number[] {
  const children = new Map<number, number[]>();
  for (const s of stats) {
    const list = children.get(s.ppid);
    if (list) list.push(s.pid);
    else children.set(s.ppid, [s.pid]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** The shell's mark and the identities (`socket:[…]`) of its control pipes. */
export interface LeftoverSigns {
  mark: { name: string; value: string };
  pipes: readonly string[];
}

function carriesMark(pid: number, needle: Buffer): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    return environ.subarray(0, needle.length - 1).equals(needle.subarray(1)) || environ.includes(needle);
  } catch {
    return false;
  }
}

function holdsPipe(pid: number, pipes: ReadonlySet<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    const link = fdLink(pid, fd);
    return link !== undefined && pipes.has(link);
  });
}

/** Every leftover of the shell's earlier calls now (see the header); one pass over /proc. */
export function shellLeftovers(base: ShellBaseline, signs: LeftoverSigns): number[] {
  // In a PID namespace every leftover is below the launcher: its tree is all there is to read.
  if (base.namespaced) return treeBelow(base.root).filter((pid) => !base.own.has(pid) && isRunning(pid));
  const stats = allStats();
  const out = new Set(descendants(base.root, stats).filter((pid) => !base.own.has(pid)));
  const started = new Map(stats.map((s) => [s.pid, s.start]));
  const needle = Buffer.from(`\0${signs.mark.name}=${signs.mark.value}\0`);
  const pipes = new Set(signs.pipes);
  for (const s of stats) {
    if (s.start < base.rootStart || out.has(s.pid) || base.own.has(s.pid) || s.pid === process.pid) continue;
    // A child of a process newer than the shell is that process's, unless that one is found (next pass).
    if ((started.get(s.ppid) ?? 0) >= base.rootStart) continue;
    if (carriesMark(s.pid, needle) || holdsPipe(s.pid, pipes)) out.add(s.pid);
  }
  return [...out];
}
