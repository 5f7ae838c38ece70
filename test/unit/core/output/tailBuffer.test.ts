import * as assert from 'node:assert/strict';
import type { ToolResult } from '../../../../src/core/contracts';
import { TAIL_PREVIEW_BYTES } from '../../../../src/core/output/outputLimits';
import { streamTailUpdates, TailBuffer, utf8SafeTail } from '../../../../src/core/output/tailBuffer';

describe('TailBuffer', () => {
  it('defaults to the 50 KiB preview budget', () => {
    assert.equal(new TailBuffer().maxBytes, TAIL_PREVIEW_BYTES);
    assert.equal(TAIL_PREVIEW_BYTES, 51200);
  });

  it('keeps the last maxBytes bytes across appends', () => {
    const t = new TailBuffer(10);
    t.append('12345');
    t.append('67890');
    t.append('abc');
    assert.equal(t.text(), '4567890abc');
    assert.equal(t.byteLength, 10);
  });

  it('replaces everything with the UTF-8-safe tail of a chunk at least maxBytes long (CJK)', () => {
    const t = new TailBuffer(10);
    t.append('old');
    t.append('日本語日本語');
    assert.equal(t.text(), '日本語');
  });

  it('never starts on half an emoji', () => {
    const t = new TailBuffer(10);
    for (let i = 0; i < 5; i++) t.append('😀');
    assert.equal(t.text(), '😀😀');
  });

  it('keeps everything under budget across many small pieces (compaction)', () => {
    const t = new TailBuffer(1000);
    let all = '';
    for (let i = 0; i < 100; i++) {
      t.append(`${i},`);
      all += `${i},`;
    }
    assert.equal(t.text(), all);
    assert.equal(new TailBuffer(5).text(), '');
  });

  it('utf8SafeTail cuts forward over continuation bytes', () => {
    assert.equal(utf8SafeTail('a日本', 5), '本');
    assert.equal(utf8SafeTail('a日本', 7), 'a日本');
    assert.equal(utf8SafeTail('abc', 0), '');
  });

  it('streamTailUpdates reports the whole current tail, not a delta', () => {
    const updates: ToolResult[] = [];
    const push = streamTailUpdates(new TailBuffer(6), (u) => updates.push(u));
    push('abc');
    push('defgh');
    assert.deepEqual(updates, [
      { content: [{ type: 'text', text: 'abc' }], details: {} },
      { content: [{ type: 'text', text: 'cdefgh' }], details: {} },
    ]);
  });
});
