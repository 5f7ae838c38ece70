// What every bench shares: the row `bench/run.mjs` prints, and the statistics.

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
