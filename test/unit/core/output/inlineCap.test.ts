import * as assert from 'node:assert/strict';
import { enforceInlineByteCap, inlineElisionMarker, rawOutputFooter } from '../../../../src/core/output/inlineCap';
import { DEFAULT_INLINE_CAP_BYTES, INLINE_CAP_SLACK_BYTES } from '../../../../src/core/output/outputLimits';

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line-${String(i).padStart(4, '0')}\n`).join('');

describe('enforceInlineByteCap', () => {
  it('defaults to 50 KiB + 2 KiB = 53,248 bytes', () => {
    assert.equal(INLINE_CAP_SLACK_BYTES, 2048);
    assert.equal(DEFAULT_INLINE_CAP_BYTES, 53248);
  });

  it('returns the same string under and exactly at the cap, without saving', async () => {
    let saved = 0;
    const save = (): string => {
      saved++;
      return '1';
    };
    const small = 'hello';
    assert.equal(await enforceInlineByteCap(small, 100, save), small);
    const exact = 'x'.repeat(DEFAULT_INLINE_CAP_BYTES);
    assert.equal(await enforceInlineByteCap(exact, undefined, save), exact);
    const exactCjk = '日'.repeat(30); // 90 bytes
    assert.equal(await enforceInlineByteCap(exactCjk, 90, save), exactCjk);
    assert.equal(saved, 0);
  });

  it('keeps ~60% head and ~25% tail on line boundaries with the byte marker', async () => {
    const text = lines(30); // 30 lines of 10 bytes
    const out = await enforceInlineByteCap(text, 100);
    // head: up to byte 60, cut back to the newline at 59; tail: last 25 bytes, forward past a newline
    assert.equal(out, `${text.slice(0, 59)}\n[…221B elided…]\nline-0028\nline-0029\n`);
    assert.ok(Buffer.byteLength(out) <= 100);
  });

  it('uses the default budget when none is given', async () => {
    const text = lines(6000); // 60,000 bytes
    const out = await enforceInlineByteCap(text);
    assert.notEqual(out, text);
    assert.ok(Buffer.byteLength(out) <= DEFAULT_INLINE_CAP_BYTES);
    assert.ok(out.startsWith('line-0000\n'));
    assert.ok(out.endsWith('line-5999\n'));
  });

  it('appends the raw-output footer when saveArtifact yields an id, with the full text', async () => {
    const text = lines(30);
    let got = '';
    const out = await enforceInlineByteCap(text, 100, async (full) => {
      got = full;
      return '7';
    });
    assert.equal(got, text);
    assert.ok(out.endsWith('line-0029\n[raw output: artifact://7]'));
    assert.equal(rawOutputFooter('7'), '[raw output: artifact://7]');
    assert.equal(inlineElisionMarker(12), '[…12B elided…]');
    assert.ok(!(await enforceInlineByteCap(text, 100, () => undefined)).includes('raw output'));
  });

  it('adds a newline before the footer when the tail does not end with one', async () => {
    const out = await enforceInlineByteCap(`${lines(30)}end`, 100, () => '3');
    assert.ok(out.endsWith('line-0029\nend\n[raw output: artifact://3]'));
  });

  it('never splits a code point when there is no newline to cut at (CJK, emoji)', async () => {
    const cjk = '日'.repeat(100); // 300 bytes
    // head: 60 bytes → 20 characters; tail: 25 bytes → forward to 24 → 8 characters
    assert.equal(await enforceInlineByteCap(cjk, 100), `${'日'.repeat(20)}\n[…216B elided…]\n${'日'.repeat(8)}`);
    const emoji = '😀'.repeat(50); // 200 bytes
    // head: 60 → 15 emoji; tail: 25 → 24 → 6 emoji
    assert.equal(await enforceInlineByteCap(emoji, 100), `${'😀'.repeat(15)}\n[…116B elided…]\n${'😀'.repeat(6)}`);
  });
});
