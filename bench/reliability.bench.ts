// Session recovery bench: from the start of a call that breaks its persistent shell to the end of
// the next call that succeeds on the same session. Run: `node bench/run.mjs reliability` after compiling.
import { median, type BenchRow } from './benchKit';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OutputSinkLike, OutputSummary } from '../src/core/contracts';
import { LocalShellExecutor } from '../src/exec/localExecutor';

class NullSink implements OutputSinkLike {
  push(): void {}
  async dump(): Promise<OutputSummary> {
    return { output: '', truncated: false, totalLines: 0, totalBytes: 0, outputLines: 0, outputBytes: 0 };
  }
  dispose(): void {}
}

/** One poison per way a session breaks: stopped, silent, refusing; and one the wrapper shrugs off. */
const POISONS: Array<[string, string]> = [
  ['kill -STOP $$ (stopped)', 'kill -STOP $$'],
  ['enable -n builtin (silent)', 'enable -n builtin'],
  ['ulimit -n 5 (refuses the next call)', 'ulimit -n 5'],
  ['builtin(){ :; } (healed in place)', 'builtin(){ :; }'],
];

const RUNS = 5;
const round = (n: number): number => Number(n.toFixed(1));

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bench-rel-'));
  const executor = new LocalShellExecutor({ shellArgs: ['-c'] });
  const call = (command: string, sessionKey: string) => executor.run({ command, cwd: tmp, timeoutMs: 60_000, sessionKey, sink: new NullSink() });
  try {
    let key = 0;
    for (const [name, poison] of POISONS) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const session = `bench-rel-${key++}`;
        await call('true', session);
        const started = process.hrtime.bigint();
        await call(poison, session);
        const next = await call('true', session);
        if (next.exitCode !== 0) throw new Error(`the call after \`${poison}\` exited ${next.exitCode}`);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      const ms = median(times);
      rows.push({ name: `poisoned call → next success: ${name} (median)`, value: round(ms), unit: 'ms', target: '< 2000', met: ms < 2000 ? 'yes' : 'no' });
    }
  } finally {
    await executor.dispose();
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}
