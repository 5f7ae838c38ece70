// OutputSink throughput and memory on 1 GiB of mixed-length lines pushed as ~64 KiB Buffers, the
// way a child process's stdout arrives. Targets from issue 3: ≥ 300 MB/s without spill, ≥ 150 MB/s
// with spill to a file, peak RSS growth < 64 MiB; issue 23: ≥ 300 MB/s with 5% coloured lines.

import type { BenchRow } from './benchKit';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OutputSink } from '../src/core/output/outputSink';

const GIB = 1024 * 1024 * 1024;
const MIB = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
/** Distinct chunks generated up front and cycled, so generation is not what gets measured. */
const POOL_BYTES = 16 * MIB;

/** Deterministic pseudo-random numbers (a fixed LCG) so every run pushes the same bytes. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

/**
 * Lines of 0–200 bytes (mostly short), some CJK and emoji, now and then a 1–4 KB line that the
 * column cap cuts; optionally ANSI colour on a share of lines (the sanitizing slow path).
 */
function makePool(ansiShare: number): Buffer[] {
  const rnd = lcg(42);
  const words = ['build', 'ok', 'src/core/outputSink.ts', 'warning:', '12345', 'compiling', '日本語のテキスト', 'emoji 😀🚀', 'done.'];
  const text: string[] = [];
  let size = 0;
  while (size < POOL_BYTES) {
    let line = '';
    const r = rnd();
    const target = r < 0.01 ? 1000 + Math.floor(rnd() * 3000) : Math.floor(rnd() * rnd() * 200);
    while (Buffer.byteLength(line) < target) line += words[Math.floor(rnd() * words.length)] + ' ';
    if (ansiShare > 0 && rnd() < ansiShare) line = `\x1b[32m${line}\x1b[0m`;
    line += '\n';
    text.push(line);
    size += Buffer.byteLength(line);
  }
  const all = Buffer.from(text.join(''), 'utf8');
  const chunks: Buffer[] = [];
  // Cut at fixed byte offsets: chunk boundaries land inside code points and lines, as in real pipes.
  for (let off = 0; off + CHUNK_BYTES <= all.length; off += CHUNK_BYTES) chunks.push(Buffer.from(all.subarray(off, off + CHUNK_BYTES)));
  return chunks;
}

interface Measure {
  mbPerSec: number;
  rssGrowthMiB: number;
}

async function measure(pool: Buffer[], totalBytes: number, artifactPath?: string): Promise<Measure> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sink = new OutputSink(artifactPath ? { artifactPath, artifactId: '1' } : {});
  const start = process.hrtime.bigint();
  let pushed = 0;
  let i = 0;
  while (pushed < totalBytes) {
    const chunk = pool[i++ % pool.length];
    sink.push(chunk);
    pushed += chunk.length;
    if ((i & 63) === 0) {
      const rss = process.memoryUsage().rss;
      if (rss > peak) peak = rss;
    }
  }
  const summary = await sink.dump();
  sink.dispose();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  peak = Math.max(peak, process.memoryUsage().rss);
  if (summary.totalBytes <= 0) throw new Error('sink saw no bytes');
  return { mbPerSec: pushed / 1e6 / seconds, rssGrowthMiB: (peak - base) / MIB };
}

function row(name: string, value: number, unit: string, target: string, ok: boolean): BenchRow {
  return { name, value: Math.round(value * 10) / 10, unit, target, met: ok ? 'yes' : 'no' };
}

export async function run(): Promise<BenchRow[]> {
  const total = Number(process.env.OUTPUT_SINK_BENCH_BYTES ?? GIB);
  const plain = makePool(0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bench-'));
  try {
    await measure(plain, 64 * MIB); // warm-up: let the JIT settle before timing
    const memory = await measure(plain, total);
    const spill = await measure(plain, total, path.join(dir, 'spill', '1.bash.log'));
    const ansi = await measure(makePool(0.05), Math.min(total, 256 * MIB));
    const rss = Math.max(memory.rssGrowthMiB, spill.rssGrowthMiB);
    return [
      row('throughput, no spill (1 GiB, 64 KiB chunks)', memory.mbPerSec, 'MB/s', '>= 300', memory.mbPerSec >= 300),
      row('throughput, spill to file (1 GiB)', spill.mbPerSec, 'MB/s', '>= 150', spill.mbPerSec >= 150),
      row('peak RSS growth', rss, 'MiB', '< 64', rss < 64),
      // Issue 23: the coloured path is sanitized in one pass over bytes (sanitizeBytes.ts).
      row('throughput, 5% ANSI-coloured lines (sanitizing path)', ansi.mbPerSec, 'MB/s', '>= 300', ansi.mbPerSec >= 300),
      {
        name: 'ratio coloured/plain (same run: the machine-independent figure)',
        value: Math.round((ansi.mbPerSec / memory.mbPerSec) * 1000) / 1000,
        unit: 'x',
        target: 'info',
      },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
