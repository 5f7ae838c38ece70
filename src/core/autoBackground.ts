// Auto-background (docs/ARCHITECTURE.md, Background jobs): how long a foreground call waits before it
// turns into a background job.

/**
 * 0 when the threshold is ≤ 0 (background at once); with a timeout, `max(0, min(threshold,
 * timeout − 1000))` so the job is backgrounded before the deadline could end it; without one, the
 * threshold.
 */
export function autoBackgroundWaitMs(thresholdMs: number, timeoutMs: number): number {
  const threshold = Number.isFinite(thresholdMs) ? Math.max(0, Math.floor(thresholdMs)) : 0;
  if (threshold <= 0) return 0;
  if (timeoutMs > 0) return Math.max(0, Math.min(threshold, timeoutMs - 1000));
  return threshold;
}
