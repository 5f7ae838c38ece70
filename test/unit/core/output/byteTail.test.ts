import * as assert from 'node:assert/strict';
import { ByteTail } from '../../../../src/core/output/byteTail';

describe('core: ByteTail', () => {
  it('keeps everything under the limit, untruncated', () => {
    const t = new ByteTail(10);
    t.push(Buffer.from('abc'));
    t.push(Buffer.from('def'));
    assert.equal(t.text(), 'abcdef');
    assert.equal(t.truncated, false);
  });

  it('keeps the last limit bytes across chunks', () => {
    const t = new ByteTail(5);
    for (const c of ['abc', 'def', 'ghi']) t.push(Buffer.from(c));
    assert.equal(t.text(), 'efghi');
    assert.equal(t.truncated, true);
  });

  it('never starts inside a code point (2-, 3- and 4-byte characters at the cut)', () => {
    for (const [input, limit, want] of [
      ['Xé123456789', 10, '123456789'],
      ['X中12345678', 10, '12345678'],
      ['X😀1234567', 10, '1234567'],
      ['X😀1234567', 11, '😀1234567'],
    ] as const) {
      const t = new ByteTail(limit);
      for (const byte of Buffer.from(input)) t.push(Buffer.from([byte]));
      assert.equal(t.text(), want, `${input} @ ${limit}`);
    }
  });

  it('a zero limit keeps nothing and says so', () => {
    const t = new ByteTail(0);
    t.push(Buffer.from('x'));
    assert.equal(t.text(), '');
    assert.equal(t.truncated, true);
  });

  it('stays bounded: 10 MiB through a 1 KiB tail holds about one chunk beyond the limit', () => {
    const t = new ByteTail(1024);
    const chunk = Buffer.alloc(4096, 'a');
    for (let i = 0; i < 2560; i++) t.push(chunk);
    assert.equal(Buffer.byteLength(t.text()), 1024);
    assert.ok((t as unknown as { size: number }).size <= 1024 + 4096);
  });
});
