// Local executor bench: what a persistent session saves per call, and how close the output path
// comes to the pipe's own speed. Run: `node bench/run.mjs exec` after compiling.
import { CountingSink, median, type BenchRow } from './benchKit';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OutputSink } from '../src/core/output/outputSink';
import { LocalShellExecutor } from '../src/exec/localExecutor';


const GIB = 1024 * 1024 * 1024;
/** 100-byte lines, like a build log; `yes` + `head` produce them faster than any consumer reads. */
const GENERATE = `yes '${'a'.repeat(99)}' | head -c ${GIB}`;

/** Counts bytes only: the executor's own cost, without the sink's. */

/** Milliseconds to read all of `command`'s stdout through a Node pipe, counting bytes only. */
function readPipe(command: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    child.stdout.on('data', (b: Buffer) => (bytes += b.length));
    child.once('error', reject);
    child.once('close', () => (bytes === GIB ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`read ${bytes} bytes`))));
  });
}

function runShell(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('bash', args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
  });
}

const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bench-'));
  const executor = new LocalShellExecutor();
  try {
    // ---- per-call overhead ----
    const session = 'bench';
    await executor.run({ command: 'true', cwd: tmp, timeoutMs: 10_000, sessionKey: session, sink: new CountingSink() });
    const persistent: number[] = [];
    for (let i = 0; i < 60; i++) {
      const started = process.hrtime.bigint();
      await executor.run({ command: 'true', cwd: tmp, timeoutMs: 10_000, sessionKey: session, sink: new CountingSink() });
      persistent.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const oneShot: number[] = [];
    await runShell(['-lc', 'true']);
    for (let i = 0; i < 15; i++) oneShot.push(await runShell(['-lc', 'true']));
    const p = median(persistent);
    const o = median(oneShot);
    rows.push({ name: 'persistent session `true` (median)', value: round(p), unit: 'ms', target: '' });
    rows.push({ name: 'one-shot `bash -lc true` (median)', value: round(o), unit: 'ms', target: '' });
    rows.push({ name: 'per-call ratio persistent/one-shot', value: round(p / o, 3), unit: 'x', target: '<= 0.2', met: p / o <= 0.2 ? 'yes' : 'no' });

    // ---- throughput (best of two runs each: the machine is shared, a single run is noisy) ----
    const baselineMs = Math.min(
      await runShell(['-c', `${GENERATE} | cat > /dev/null`]),
      await runShell(['-c', `${GENERATE} | cat > /dev/null`]),
    );
    const baseline = GIB / 1e6 / (baselineMs / 1000);
    rows.push({ name: '1 GiB `cat` to /dev/null', value: round(baseline, 0), unit: 'MB/s', target: '' });

    // The floor for any Node reader: the same bytes read from a child's stdout pipe and only counted.
    const floorMs = Math.min(await readPipe(GENERATE), await readPipe(GENERATE));
    const floor = GIB / 1e6 / (floorMs / 1000);
    rows.push({ name: '1 GiB read from a child pipe by Node, bytes only counted (floor)', value: round(floor, 0), unit: 'MB/s', target: '' });

    let ms = Infinity;
    for (let i = 0; i < 2; i++) {
      const counting = new CountingSink();
      const started = process.hrtime.bigint();
      const raw = await executor.run({ command: GENERATE, cwd: tmp, timeoutMs: 120_000, sessionKey: session, sink: counting });
      ms = Math.min(ms, Number(process.hrtime.bigint() - started) / 1e6);
      if (raw.exitCode !== 0 || counting.bytes !== GIB) throw new Error(`executor run failed: exit ${raw.exitCode}, ${counting.bytes} bytes`);
    }
    const rawRate = GIB / 1e6 / (ms / 1000);
    rows.push({ name: '1 GiB through the executor (counting sink)', value: round(rawRate, 0), unit: 'MB/s', target: '' });
    rows.push({ name: 'ratio executor/cat (counting sink)', value: round(rawRate / baseline, 3), unit: 'x', target: '>= 0.5', met: rawRate / baseline >= 0.5 ? 'yes' : 'no' });
    rows.push({ name: 'ratio executor/Node pipe floor (counting sink)', value: round(rawRate / floor, 3), unit: 'x', target: 'info' });

    ms = Infinity;
    for (let i = 0; i < 2; i++) {
      const artifactPath = path.join(tmp, 'bench.log');
      const sink = new OutputSink({ artifactPath, artifactId: '1' });
      const started = process.hrtime.bigint();
      const full = await executor.run({ command: GENERATE, cwd: tmp, timeoutMs: 120_000, sessionKey: session, sink });
      ms = Math.min(ms, Number(process.hrtime.bigint() - started) / 1e6);
      sink.dispose();
      if (full.exitCode !== 0 || full.summary.totalBytes !== GIB || statSync(artifactPath).size !== GIB) {
        throw new Error(`sink run failed: exit ${full.exitCode}, ${full.summary.totalBytes} bytes`);
      }
      rmSync(artifactPath, { force: true });
    }
    const sinkRate = GIB / 1e6 / (ms / 1000);
    rows.push({ name: '1 GiB through the executor (OutputSink + artifact)', value: round(sinkRate, 0), unit: 'MB/s', target: '' });
    rows.push({ name: 'ratio executor/cat (OutputSink + artifact)', value: round(sinkRate / baseline, 3), unit: 'x', target: '>= 0.5', met: sinkRate / baseline >= 0.5 ? 'yes' : 'no' });
    // Issue 23: ≥ 0.9× what Node itself reads from a pipe (quiet machine; a busy one lowers both sides unevenly).
    rows.push({ name: 'ratio executor/Node pipe floor (OutputSink + artifact)', value: round(sinkRate / floor, 3), unit: 'x', target: '>= 0.9', met: sinkRate / floor >= 0.9 ? 'yes' : 'no' });
  } finally {
    await executor.dispose();
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}
