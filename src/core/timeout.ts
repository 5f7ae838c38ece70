// Timeout clamping (pipeline stage 8, docs/ARCHITECTURE.md): one function shared by the tool pipeline
// and the bang-command path, so the model and the user see the same bounds and the same notice text.
import type { TimeoutInfo } from './contracts';

export const DEFAULT_TIMEOUT_SEC = 300;
export const MIN_TIMEOUT_SEC = 1;
export const MAX_TIMEOUT_SEC = 3600;

/** Notice when a positive global ceiling below the hard maximum is what bounded the value. */
export function timeoutCeilingNotice(effective: number, requested: number, ceiling: number): string {
  return `Timeout clamped to ${effective}s (requested ${requested}s; global agentBash.maxTimeout ceiling ${ceiling}s).`;
}

/** Notice when the fixed 1-3600 range is what bounded the value. */
export function timeoutRangeNotice(effective: number, requested: number): string {
  // A model used to Claude Code's Bash tool sends milliseconds (120000): say which unit this is.
  const unit = requested > MAX_TIMEOUT_SEC ? '; `timeout` is in seconds, not milliseconds' : '';
  return `Timeout clamped to ${effective}s (requested ${requested}s; allowed range ${MIN_TIMEOUT_SEC}-${MAX_TIMEOUT_SEC}s${unit}).`;
}

/**
 * `requested` in seconds (undefined → 300; 0 → no deadline at all, so no timer is ever armed).
 * `maxTimeout` > 0 is a global ceiling applied before the fixed range; ≤ 0 means no ceiling.
 * A ceiling below the minimum still yields the minimum: a 0-second deadline would kill every command.
 */
export function clampTimeout(requested: number | undefined, maxTimeout: number): TimeoutInfo {
  // NaN would poison every comparison below; treat it like "not given".
  const req = requested === undefined || Number.isNaN(requested) ? DEFAULT_TIMEOUT_SEC : requested;
  if (req === 0) return { requested: 0, timeoutMs: 0 };

  const ceiling = Number.isFinite(maxTimeout) && maxTimeout > 0 ? maxTimeout : 0;
  let eff = ceiling > 0 ? Math.min(req, ceiling) : req;
  eff = Math.min(MAX_TIMEOUT_SEC, Math.max(MIN_TIMEOUT_SEC, eff));

  const info: TimeoutInfo = { requested: req, timeoutSec: eff, timeoutMs: Math.round(eff * 1000) };
  if (eff !== req) {
    info.notice =
      ceiling > 0 && eff === ceiling && ceiling < MAX_TIMEOUT_SEC
        ? timeoutCeilingNotice(eff, req, ceiling)
        : timeoutRangeNotice(eff, req);
  }
  return info;
}
