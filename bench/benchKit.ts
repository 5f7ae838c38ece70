// What every bench shares: the row `bench/run.mjs` prints, the statistics, a counting sink.
import type { OutputSinkLike, OutputSummary } from '../src/core/contracts';

export interface BenchRow {
  name: string;
  value: number | string;
  unit: string;
  target: string;
  /** `yes`/`no` when the row has a target. */
  met?: string;
}

/** The median (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Counts the bytes an executor delivers, keeping none (measures the pipe, not a sink). */
export class CountingSink implements OutputSinkLike {
  bytes = 0;
  push(chunk: Uint8Array | string): void {
    this.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
  }
  async dump(): Promise<OutputSummary> {
    return { output: '', truncated: false, totalLines: 0, totalBytes: this.bytes, outputLines: 0, outputBytes: 0 };
  }
  dispose(): void {}
}
