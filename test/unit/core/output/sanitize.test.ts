import * as assert from 'node:assert/strict';
import {
  incompleteEscapeSuffixLength,
  needsSanitize,
  normalizeLineEndings,
  sanitizeText,
} from '../../../../src/core/output/sanitize';

describe('sanitize', () => {
  it('returns the very same string when there is nothing to strip (fast path)', () => {
    const text = 'plain text\twith tab\nand 日本語 😀\n';
    assert.equal(needsSanitize(text), false);
    assert.equal(sanitizeText(text), text);
  });

  it('strips CSI colour, cursor and erase sequences', () => {
    assert.equal(sanitizeText('\x1b[31mred\x1b[0m \x1b[1;32mgreen\x1b[m\x1b[2K\x1b[10A'), 'red green');
  });

  it('strips OSC titles and hyperlinks ended by BEL or ST', () => {
    assert.equal(sanitizeText('\x1b]0;title\x07a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b'), 'alinkb');
  });

  it('strips DCS payloads (sixel) and single-character escapes', () => {
    assert.equal(sanitizeText('x\x1bPq#0;2;0;0;0~~\x1b\\y\x1b(Bz\x1b7\x1b8w'), 'xyzw');
  });

  it('strips C0 except tab and newline, DEL and C1 (also the 8-bit CSI form)', () => {
    assert.equal(sanitizeText('a\x00b\x07c\x08d\x7fe\u0085f\u009b31mg\th\ni\rj'), 'abcdefg\th\nij');
  });

  it('drops U+FFFD and lone surrogates but keeps surrogate pairs', () => {
    assert.equal(sanitizeText('a\ufffdb\ud800c\udc00d😀'), 'abcd😀');
  });

  it('normalizes CRLF and lone CR to LF', () => {
    assert.equal(normalizeLineEndings('a\r\nb\rc\n\r\n'), 'a\nb\nc\n\n');
    const same = 'no carriage return\n';
    assert.equal(normalizeLineEndings(same), same);
  });

  it('measures an escape sequence left open at the end of a chunk', () => {
    assert.equal(incompleteEscapeSuffixLength('abc\x1b'), 1);
    assert.equal(incompleteEscapeSuffixLength('abc\x1b[3'), 3);
    assert.equal(incompleteEscapeSuffixLength('abc\x1b]0;tit'), 7);
    assert.equal(incompleteEscapeSuffixLength('abc\x1b[31m'), 0);
    assert.equal(incompleteEscapeSuffixLength('abc'), 0);
  });
});
