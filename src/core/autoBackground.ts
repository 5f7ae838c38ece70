// Auto-background (docs/ARCHITECTURE.md, Background jobs): whether a foreground call may turn into a
// background job, and how long it waits before it does.

/**
 * False when the call's deadline comes at or before the threshold: such a call runs in the foreground
 * and, if it does not end first, is reported as timed out (never as a job that the deadline then
 * kills unseen). A disabled deadline (0) never stops it.
 */
export function autoBackgroundApplies(thresholdMs: number, timeoutMs: number): boolean {
  const threshold = Number.isFinite(thresholdMs) ? Math.max(0, Math.floor(thresholdMs)) : 0;
  return !(timeoutMs > 0 && threshold > 0 && timeoutMs <= threshold);
}

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
