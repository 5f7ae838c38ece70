import * as assert from 'node:assert/strict';
import { clampTimeout, DEFAULT_TIMEOUT_SEC, MAX_TIMEOUT_SEC, MIN_TIMEOUT_SEC } from '../../../src/core/timeout';

describe('core/timeout clampTimeout', () => {
  it('defaults to 300 s with no notice', () => {
    assert.deepEqual(clampTimeout(undefined, 0), { requested: 300, timeoutSec: 300, timeoutMs: 300_000 });
    assert.equal(DEFAULT_TIMEOUT_SEC, 300);
  });

  it('0 disables the deadline: no seconds, 0 ms, no notice, even under a ceiling', () => {
    assert.deepEqual(clampTimeout(0, 0), { requested: 0, timeoutMs: 0 });
    assert.deepEqual(clampTimeout(0, 60), { requested: 0, timeoutMs: 0 });
  });

  it('keeps an in-range value', () => {
    assert.deepEqual(clampTimeout(42, 0), { requested: 42, timeoutSec: 42, timeoutMs: 42_000 });
  });

  it('clamps above the maximum with the range notice', () => {
    const t = clampTimeout(5000, 0);
    assert.equal(t.timeoutSec, MAX_TIMEOUT_SEC);
    assert.equal(t.timeoutMs, 3_600_000);
    assert.equal(t.notice, 'Timeout clamped to 3600s (requested 5000s; allowed range 1-3600s; `timeout` is in seconds, not milliseconds).');
  });

  it('clamps below the minimum with the range notice', () => {
    const t = clampTimeout(0.2, 0);
    assert.equal(t.timeoutSec, MIN_TIMEOUT_SEC);
    assert.equal(t.notice, 'Timeout clamped to 1s (requested 0.2s; allowed range 1-3600s).');
    assert.equal(clampTimeout(-5, 0).notice, 'Timeout clamped to 1s (requested -5s; allowed range 1-3600s).');
  });

  it('a positive maxTimeout caps the default path with the ceiling notice', () => {
    const t = clampTimeout(undefined, 120);
    assert.equal(t.timeoutSec, 120);
    assert.equal(t.timeoutMs, 120_000);
    assert.equal(t.notice, 'Timeout clamped to 120s (requested 300s; global agentBash.maxTimeout ceiling 120s).');
  });

  it('a positive maxTimeout caps an explicit value', () => {
    assert.equal(
      clampTimeout(1000, 600).notice,
      'Timeout clamped to 600s (requested 1000s; global agentBash.maxTimeout ceiling 600s).',
    );
  });

  it('an explicit value below the ceiling wins, with no notice', () => {
    const t = clampTimeout(30, 600);
    assert.equal(t.timeoutSec, 30);
    assert.equal(t.notice, undefined);
  });

  it('maxTimeout ≤ 0 means no ceiling', () => {
    assert.equal(clampTimeout(3000, 0).timeoutSec, 3000);
    assert.equal(clampTimeout(3000, -1).timeoutSec, 3000);
  });

  it('a ceiling at or above 3600 reports the range, not the ceiling', () => {
    assert.equal(clampTimeout(9000, 5000).notice, 'Timeout clamped to 3600s (requested 9000s; allowed range 1-3600s; `timeout` is in seconds, not milliseconds).');
    assert.equal(clampTimeout(9000, 3600).notice, 'Timeout clamped to 3600s (requested 9000s; allowed range 1-3600s; `timeout` is in seconds, not milliseconds).');
  });

  it('the minimum is still enforced when the ceiling is below it', () => {
    const t = clampTimeout(10, 0.5);
    assert.equal(t.timeoutSec, 1);
    assert.equal(t.notice, 'Timeout clamped to 1s (requested 10s; allowed range 1-3600s).');
  });

  it('fractional values survive and convert to milliseconds', () => {
    assert.deepEqual(clampTimeout(1.5, 0), { requested: 1.5, timeoutSec: 1.5, timeoutMs: 1500 });
  });
});
