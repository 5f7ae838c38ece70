import * as assert from 'node:assert/strict';
import type { ToolResult } from '../../../../src/core/contracts';
import { TAIL_BUFFER_MAX_PIECES, TAIL_PREVIEW_BYTES } from '../../../../src/core/output/outputLimits';
import { streamTailUpdates, TailBuffer, utf8SafeTail } from '../../../../src/core/output/tailBuffer';

describe('TailBuffer', () => {
  it('defaults to the 50 KiB preview budget', () => {
    assert.equal(new TailBuffer().maxBytes, TAIL_PREVIEW_BYTES);
    assert.equal(TAIL_PREVIEW_BYTES, 51200);
  });

  it('keeps everything under the limit, untruncated (bytes and text alike)', () => {
    const t = new TailBuffer(10);
    t.push(Buffer.from('abc'));
    t.push('def');
    assert.equal(t.text(), 'abcdef');
    assert.equal(t.truncated, false);
    assert.equal(t.byteLength, 6);
  });

  it('keeps the last maxBytes bytes across pushes', () => {
    const t = new TailBuffer(10);
    t.push('12345');
    t.push('67890');
    t.push('abc');
    assert.equal(t.text(), '4567890abc');
    assert.equal(t.byteLength, 10);
    assert.equal(t.truncated, true);
  });

  it('replaces everything with the UTF-8-safe tail of a chunk at least maxBytes long (CJK)', () => {
    const t = new TailBuffer(10);
    t.push('old');
    t.push('日本語日本語');
    assert.equal(t.text(), '日本語');
    assert.equal(t.truncated, true);
  });

  it('never starts on half an emoji', () => {
    const t = new TailBuffer(10);
    for (let i = 0; i < 5; i++) t.push('😀');
    assert.equal(t.text(), '😀😀');
  });

  it('never starts inside a code point when bytes arrive one at a time (2-, 3- and 4-byte characters at the cut)', () => {
    for (const [input, limit, want] of [
      ['Xé123456789', 10, '123456789'],
      ['X中12345678', 10, '12345678'],
      ['X😀1234567', 10, '1234567'],
      ['X😀1234567', 11, '😀1234567'],
    ] as const) {
      const t = new TailBuffer(limit);
      for (const byte of Buffer.from(input)) t.push(Buffer.from([byte]));
      assert.equal(t.text(), want, `${input} @ ${limit}`);
    }
  });

  it('is byte-exact for a code point split across two chunks', () => {
    const t = new TailBuffer(100);
    const bytes = Buffer.from('a日b');
    t.push(bytes.subarray(0, 2));
    t.push(bytes.subarray(2));
    assert.equal(t.text(), 'a日b');
    assert.equal(t.byteLength, 5);
  });

  it('keeps everything under budget across many small pieces (compaction)', () => {
    const t = new TailBuffer(100_000);
    let all = '';
    for (let i = 0; i < TAIL_BUFFER_MAX_PIECES * 3; i++) {
      t.push(`${i},`);
      all += `${i},`;
    }
    assert.equal(t.text(), all);
    assert.equal(t.truncated, false);
    assert.equal(new TailBuffer(5).text(), '');
  });

  it('compaction still cuts to the limit: a byte at a time through 1 KiB keeps exactly the last 1 KiB', () => {
    const t = new TailBuffer(1024);
    const input = Buffer.from('0123456789'.repeat(500));
    for (const byte of input) t.push(Buffer.from([byte]));
    assert.equal(t.text(), input.subarray(input.length - 1024).toString());
    assert.ok((t as unknown as { size: number }).size <= 1024 + TAIL_BUFFER_MAX_PIECES);
  });

  it('a zero limit keeps nothing and says so', () => {
    const t = new TailBuffer(0);
    t.push(Buffer.from('x'));
    assert.equal(t.text(), '');
    assert.equal(t.truncated, true);
  });

  it('stays bounded: 10 MiB through a 1 KiB tail holds about one chunk beyond the limit', () => {
    const t = new TailBuffer(1024);
    const chunk = Buffer.alloc(4096, 'a');
    for (let i = 0; i < 2560; i++) t.push(chunk);
    assert.equal(Buffer.byteLength(t.text()), 1024);
    assert.ok((t as unknown as { size: number }).size <= 1024 + 4096);
  });

  it('does not copy pipe-sized chunks: 64 KiB chunks under 4 MiB stay separate pieces', () => {
    const t = new TailBuffer(4 * 1024 * 1024);
    const chunk = Buffer.alloc(65536, 'a');
    for (let i = 0; i < 200; i++) t.push(chunk);
    const chunks = (t as unknown as { chunks: Buffer[] }).chunks;
    assert.equal(chunks.length, 64);
    assert.ok(chunks.every((c) => c === chunk));
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
