// The policy's time budgets (analysis, rule matching, link scans) count the CPU time of the thread
// that decides, not the wall clock and not the whole process:
// - on a busy machine (two cores shared with a build and a test run) the wall clock runs on while
//   the decision waits for a core, and a command that takes 2 ms of work would ask "took too long"
//   for no reason of its own;
// - the process's CPU time (process.cpuUsage) also counts every other thread: V8's background
//   compilers and collector, the bash expander's worker starting up, WebAssembly tier-up. A cold
//   stdio MCP server's first command asked "took too long to match" while those ran beside it.
// On Linux the thread's own run time is read from /proc/thread-self/schedstat (nanoseconds, one
// pread on a descriptor opened once per thread: this module is loaded again in every worker, so
// each thread reads its own). Elsewhere, or where /proc is not mounted, the process's CPU time is
// the fallback. Either still bounds what a hostile input can cost.
import * as fs from 'fs';

let schedstat: number | undefined | null = undefined;
const buf = Buffer.alloc(128);

function openSchedstat(): number | null {
  try {
    const fd = fs.openSync('/proc/thread-self/schedstat', 'r');
    // A kernel without schedstat accounting reads as zeros: use the fallback there.
    if (readRuntimeNs(fd) === undefined) {
      fs.closeSync(fd);
      return null;
    }
    return fd;
  } catch {
    return null;
  }
}

function readRuntimeNs(fd: number): number | undefined {
  const n = fs.readSync(fd, buf, 0, buf.length, 0);
  const text = buf.toString('latin1', 0, n);
  const space = text.indexOf(' ');
  const ns = Number(space < 0 ? NaN : text.slice(0, space));
  return Number.isFinite(ns) && ns > 0 ? ns : undefined;
}

function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * How often the CPU clock is really read, in wall milliseconds. Reading it costs a system call (about
 * 5 µs, 2 µs for process.cpuUsage), and a decision looks at the clock dozens of times: that alone was
 * 0.3 ms of a 0.5 ms decision. A thread cannot use more CPU than wall time passes, so between two
 * reads the last reading plus the wall time since is an upper bound that is off by at most this much.
 */
const RESAMPLE_WALL_MS = 1;
let sampledAtWall = -Infinity;
let sampledCpu = 0;

/**
 * Milliseconds of CPU this thread has used (the process's, where the thread's cannot be read), never
 * under the truth and at most RESAMPLE_WALL_MS over it; compare only with itself.
 */
export function cpuNow(): number {
  const wall = performance.now();
  const since = wall - sampledAtWall;
  if (since >= 0 && since < RESAMPLE_WALL_MS) return sampledCpu + since;
  sampledCpu = readCpuMs();
  sampledAtWall = performance.now();
  return sampledCpu;
}

function readCpuMs(): number {
  if (schedstat === undefined) schedstat = openSchedstat();
  if (schedstat !== null) {
    try {
      const ns = readRuntimeNs(schedstat);
      if (ns !== undefined) return ns / 1e6;
    } catch {
      // fall through: the descriptor went bad (it never should); stop using it.
    }
    schedstat = null;
  }
  return processCpuMs();
}

/** Which clock cpuNow reads (tests and the bench say so). */
export function cpuClockSource(): 'thread' | 'process' {
  if (schedstat === undefined) schedstat = openSchedstat();
  return schedstat === null ? 'process' : 'thread';
}
