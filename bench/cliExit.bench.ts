// The CLI's own bars, measured rather than asserted (a loaded machine makes any millisecond bound in a
// test flaky): a usage error within 200 ms of the CLI's start, and the process gone within 100 ms of
// its result's last byte beyond what any Node process needs to exit on this machine now.
import { median, type BenchRow } from './benchKit';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runMain } from '../src/cli/run';

const CLI = path.resolve(__dirname, '../../dist/cli.js');
const RUNS = 7;
const round = (n: number): number => Number(n.toFixed(1));

/** From the last stdout byte to the child's exit. */
function exitGap(args: string[], cwd: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let lastByte = performance.now();
    child.stdout.on('data', () => (lastByte = performance.now()));
    child.once('exit', () => resolve(performance.now() - lastByte));
  });
}

async function usageMs(): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, never called unbound
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  const started = performance.now();
  try {
    await runMain(['--timeout', 'abc', '--', 'true']);
    return performance.now() - started;
  } finally {
    process.stderr.write = write;
  }
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bench-cliexit-'));
  try {
    const usage: number[] = [];
    const node: number[] = [];
    const plain: number[] = [];
    const escalated: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      usage.push(await usageMs());
      node.push(await exitGap(['-e', 'process.stdout.write("x")'], dir));
      plain.push(await exitGap([CLI, 'run', '--yes', '--', 'echo hi'], dir));
    }
    for (let i = 0; i < 3; i++) escalated.push(await exitGap([CLI, 'run', '--yes', '--timeout', '1', '--', "trap '' TERM; sleep 30"], dir));
    const base = median(node);
    const over = (xs: number[]): number => round(median(xs) - base);
    const u = round(median(usage));
    return [
      { name: `CLI usage error, its own time (median of ${RUNS})`, value: u, unit: 'ms', target: '≤ 200', met: u <= 200 ? 'yes' : 'no' },
      { name: 'Node alone: last byte → exit (the baseline)', value: round(base), unit: 'ms', target: '' },
      { name: 'CLI `echo hi`: last byte → exit, beyond the baseline', value: over(plain), unit: 'ms', target: '≤ 100', met: over(plain) <= 100 ? 'yes' : 'no' },
      { name: 'CLI after a SIGKILL escalation: last byte → exit, beyond the baseline', value: over(escalated), unit: 'ms', target: '≤ 100', met: over(escalated) <= 100 ? 'yes' : 'no' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
