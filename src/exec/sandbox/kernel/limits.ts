// Room exec/sandbox/kernel/: what the kernel enforces on a sandboxed command (cgroup limits, namespaces, seccomp).
// Per-command limits of a sandboxed run: processes and memory through a cgroup of its own where this
// process may make one (cgroup v1 `pids`/`memory` hierarchies, or v2 with those controllers
// delegated: root here; a desktop user's systemd slice usually does not delegate them), and the
// size of TMPDIR as a size-limited tmpfs (bwrap `--size`, 0.6 and later). Which limit a command
// hit is read back from the cgroup's event counters and from the output.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export interface SandboxLimits {
  /** Processes (and threads) at once; 0: no limit. */
  processes: number;
  /** Memory of all the command's processes, MiB; 0: no limit. */
  memoryMiB: number;
  /** Size of TMPDIR, MiB; 0: not a tmpfs of its own (the session folder). */
  tmpMiB: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { processes: 512, memoryMiB: 4096, tmpMiB: 512 };

export const LIMIT_NAMES = {
  processes: 'agentBash.sandbox.limits.processes',
  memory: 'agentBash.sandbox.limits.memory',
  tmp: 'agentBash.sandbox.limits.tmpdirSize',
} as const;

/** A number setting as a limit: a non-negative integer, else the default. */
export function limitValue(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}

/**
 * A limit whose setting was renamed: the new name's value unless it is left at the default, then the
 * old name's (a person's earlier choice keeps working until they set the new one).
 */
export function renamedLimit(current: unknown, old: unknown, fallback: number): number {
  const value = limitValue(current, fallback);
  return value !== fallback ? value : limitValue(old, fallback);
}

let sizeSupport: boolean | undefined;
/** bwrap's `--size` (0.6+), asked once. */
export function bwrapHasSize(bwrap: string): boolean {
  if (sizeSupport === undefined) {
    try {
      sizeSupport = execFileSync(bwrap, ['--help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).includes('--size');
    } catch {
      sizeSupport = false;
    }
  }
  return sizeSupport;
}

interface Controller {
  /** The folder new cgroups are made in. */
  parent: string;
  kind: 'pids' | 'memory';
  version: 1 | 2;
}

let controllers: Controller[] | undefined;

/** Where this process may make a child cgroup with a pids or memory limit (found once). */
export function cgroupControllers(): Controller[] {
  if (controllers) return controllers;
  controllers = [];
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return controllers;
  }
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of lines) {
    const parts = line.split(':');
    if (parts.length < 3) continue;
    const [id, names, rel] = parts;
    if (id === '0' && names === '') v2 = rel;
    else for (const n of names.split(',')) v1.set(n, rel);
  }
  for (const kind of ['pids', 'memory'] as const) {
    const rel = v1.get(kind);
    const candidates: Controller[] = [];
    if (rel !== undefined) candidates.push({ parent: path.join('/sys/fs/cgroup', kind, rel), kind, version: 1 });
    if (v2 !== undefined) for (const mount of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) candidates.push({ parent: path.join(mount, v2), kind, version: 2 });
    for (const c of candidates) if (usable(c)) {
      controllers.push(c);
      sweep(c.parent);
      break;
    }
  }
  return controllers;
}

/** Removes the empty cgroups of Agent Bash processes that are gone (a crash, a SIGKILL). */
function sweep(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^agent-bash-(?:probe-)?(\d+)(?:-\d+)?$/.exec(name);
    if (!m || Number(m[1]) === process.pid || pidAlive(Number(m[1]))) continue;
    try {
      rmdirSync(path.join(parent, name));
    } catch {
      // Still has processes, or not ours to remove.
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function unlimited(c: Controller): string {
  return c.kind === 'memory' && c.version === 1 ? '-1' : 'max';
}

function limitFile(c: Controller): string {
  if (c.kind === 'pids') return 'pids.max';
  return c.version === 1 ? 'memory.limit_in_bytes' : 'memory.max';
}

/** Makes and removes a probe cgroup: the limit file must be there and writable. */
function usable(c: Controller): boolean {
  const probe = path.join(c.parent, `agent-bash-probe-${process.pid}`);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  try {
    // `r+`: the file must be the kernel's (a plain tmpfs at /sys/fs/cgroup would take any name).
    writeFileSync(path.join(probe, limitFile(c)), unlimited(c), { flag: 'r+' });
    return true;
  } catch {
    return false;
  } finally {
    try {
      rmdirSync(probe);
    } catch {
      // Left for the next start's sweep; nothing ran in it.
    }
  }
}

/** Counters of limit hits: the pids cgroup's `max` events, the memory cgroup's OOM kills. */
export interface LimitCounts {
  processes: number;
  memory: number;
}

export class CommandCgroups {
  readonly procsFiles: string[] = [];
  private readonly dirs: Array<{ dir: string; c: Controller }> = [];

  constructor(name: string, limits: SandboxLimits) {
    for (const c of cgroupControllers()) {
      const value = c.kind === 'pids' ? limits.processes : limits.memoryMiB * 1024 * 1024;
      if (value <= 0) continue;
      const dir = path.join(c.parent, name);
      try {
        mkdirSync(dir);
      } catch {
        // Taken (never ours to remove) or not allowed: this command goes without it.
        continue;
      }
      try {
        writeFileSync(path.join(dir, limitFile(c)), String(value), { flag: 'r+' });
        // v2: no swap beyond the limit either, where the kernel offers it.
        if (c.kind === 'memory' && c.version === 2) tryWrite(path.join(dir, 'memory.swap.max'), '0');
        this.dirs.push({ dir, c });
        this.procsFiles.push(path.join(dir, 'cgroup.procs'));
      } catch {
        try {
          rmdirSync(dir);
        } catch {
          // Already gone.
        }
      }
    }
  }

  /** The processes in the command's cgroups now (host pids); undefined when there is none or it cannot be read. */
  members(): number[] | undefined {
    if (this.procsFiles.length === 0) return undefined;
    try {
      return readFileSync(this.procsFiles[0], 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map(Number);
    } catch {
      return undefined;
    }
  }

  /** True when a cgroup of this kind was made. */
  has(kind: 'pids' | 'memory'): boolean {
    return this.dirs.some((d) => d.c.kind === kind);
  }

  counts(): LimitCounts {
    const out: LimitCounts = { processes: 0, memory: 0 };
    for (const { dir, c } of this.dirs) {
      if (c.kind === 'pids') out.processes += counter(path.join(dir, 'pids.events'), 'max');
      else out.memory += counter(path.join(dir, c.version === 1 ? 'memory.oom_control' : 'memory.events'), 'oom_kill');
    }
    return out;
  }

  /** Removes the cgroups (true when all are gone; a process still dying keeps one busy). */
  remove(): boolean {
    let all = true;
    for (const { dir } of this.dirs) {
      try {
        rmdirSync(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') all = false;
      }
    }
    return all;
  }
}

function tryWrite(file: string, value: string): void {
  try {
    writeFileSync(file, value, { flag: 'r+' });
  } catch {
    // Not offered here.
  }
}

function counter(file: string, key: string): number {
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const [k, v] = line.split(' ');
      if (k === key) return Number(v) || 0;
    }
  } catch {
    // Gone already.
  }
  return 0;
}

/**
 * The constant shell that moves itself into the command's cgroups, then execs the rest:
 * `sh -c SCRIPT sh procs1 procs2 -- file args…`. A cgroup it cannot enter fails the command (125)
 * rather than running it without its limits.
 */
export const CGROUP_ENTER_SCRIPT = [
  'while [ "$1" != -- ]; do',
  '  echo $$ > "$1" || { echo "agent-bash: cannot enter the command\'s cgroup $1" >&2; exit 125; }',
  '  shift',
  'done',
  'shift',
  'exec "$@"',
].join('\n');

/** What the output says about a limit, for routes whose cgroup counters are not at hand. */
export function limitHitsInOutput(output: string, tmpDir: string | undefined): string[] {
  const out: string[] = [];
  if (/fork: (retry: )?Resource temporarily unavailable|Cannot fork|can't fork/i.test(output)) out.push('processes');
  if (tmpDir !== undefined && output.split('\n').some((l) => /No space left on device/.test(l) && (l.includes(tmpDir) || /\$TMPDIR|\/tmp/.test(l)))) out.push('tmp');
  return out;
}

export function limitNotice(hits: readonly string[], limits: SandboxLimits): string | undefined {
  if (hits.length === 0) return undefined;
  const words = hits.map((h) =>
    h === 'processes'
      ? `processes (${limits.processes}, ${LIMIT_NAMES.processes})`
      : h === 'memory'
        ? `memory (${limits.memoryMiB} MiB, ${LIMIT_NAMES.memory}: a process was killed)`
        : `TMPDIR size (${limits.tmpMiB} MiB, ${LIMIT_NAMES.tmp})`,
  );
  return `The sandboxed command hit its limit on ${words.join(' and ')}.`;
}

/**
 * Where no pids cgroup can be made (an unprivileged user, measured here): RLIMIT_NPROC set by the
 * first process inside the sandbox. bwrap runs an unprivileged command in a user namespace of its
 * own, where the kernel counts only that namespace's processes against it (not the user's others).
 * For root outside a user namespace the kernel does not apply it at all.
 */
export function nprocPrefix(processes: number): string[] {
  if (processes <= 0) return [];
  // dash spells it -p, bash and busybox -u.
  return ['/bin/sh', '-c', '{ ulimit -u "$0" || ulimit -p "$0"; } 2>/dev/null; exec "$@"', String(processes)];
}
