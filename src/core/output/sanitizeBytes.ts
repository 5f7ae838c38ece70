// The sanitiser's byte form for valid UTF-8 (docs/ARCHITECTURE.md, Output): one pass over the bytes,
// no decode, no regex. For any valid UTF-8 `b` it produces exactly the UTF-8 bytes of
// `sanitizeText(normalizeLineEndings(b.toString('utf8')))` (sanitize.ts, the string form, which the
// sink keeps for invalid UTF-8): the same sequences match in the same order, because every byte that
// a sequence's character classes test is ASCII and no byte of a multi-byte character is.
//
// What the string form does, restated per position (ECMA-48, see sanitize.ts's ANSI_SEQUENCE):
// - `ESC ]` body up to BEL or `ESC \` (OSC); without a terminator only `ESC ]` goes;
// - `ESC P|X|^|_` up to the first `ESC \` (DCS/SOS/PM/APC); without one only the two bytes go;
// - `ESC [` or U+009B, params 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E (CSI); without a
//   final byte only `ESC [` goes (U+009B alone, as a C1 control);
// - `ESC`, intermediates 0x20–0x2F, final 0x30–0x7E; without one the ESC alone goes;
// - then C0 except `\t` `\n`, DEL, C1 (U+0080–U+009F) and U+FFFD go; `\r\n` and a lone `\r` become `\n`.
// The classes are disjoint, so the regex never backtracks into a shorter match: a greedy scan is exact.

const ESC = 0x1b;
const BEL = 0x07;
const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const DEL = 0x7f;
const BACKSLASH = 0x5c;
/** U+009B (8-bit CSI) in UTF-8. */
const C1_CSI = Buffer.from([0xc2, 0x9b]);
const STRING_TERMINATOR = Buffer.from([ESC, BACKSLASH]);
const NO_WORDS = new Int32Array(0);
const REPLACEMENT = Buffer.from('\ufffd', 'utf8');

/** End (exclusive) of the CSI parameters, intermediates and final byte starting at `j`, or -1. */
function csiEnd(b: Uint8Array, j: number, n: number): number {
  let c = j < n ? b[j] : -1;
  while (c >= 0x30 && c <= 0x3f) c = ++j < n ? b[j] : -1;
  while (c >= 0x20 && c <= 0x2f) c = ++j < n ? b[j] : -1;
  return c >= 0x40 && c <= 0x7e ? j + 1 : -1;
}

function isControl(c: number): boolean {
  return (c < 0x20 && c !== TAB && c !== LF) || c === DEL;
}

/**
 * Index of the first C0 control other than `\t`/`\n`, or DEL, at or after `from` (else `n`). `words`
 * views `b` from byte `base` on, four bytes at a time: a word is looked at byte by byte only when it
 * may hold a byte below 0x20 or a 0x7F (SWAR; for text that means it holds a newline or tab).
 */
function findControl(b: Uint8Array, words: Int32Array, base: number, from: number, n: number): number {
  const wordsEnd = base + (words.length << 2);
  let i = from;
  if (i < wordsEnd) {
    while (i < base || ((i - base) & 3) !== 0) {
      if (isControl(b[i])) return i;
      i++;
    }
    for (let k = (i - base) >> 2; k < words.length; k++) {
      const x = words[k];
      const below20 = (x - 0x20202020) & ~x & 0x80808080;
      const y = x ^ 0x7f7f7f7f;
      const is7f = (y - 0x01010101) & ~y & 0x80808080;
      if ((below20 | is7f) !== 0) {
        const p = base + (k << 2);
        if (isControl(b[p])) return p;
        if (isControl(b[p + 1])) return p + 1;
        if (isControl(b[p + 2])) return p + 2;
        if (isControl(b[p + 3])) return p + 3;
      }
    }
    i = wordsEnd;
  }
  for (; i < n; i++) if (isControl(b[i])) return i;
  return n;
}

/** Index of the next C1 control (`C2 80`–`C2 9F`) at or after `from`, else `n`. */
function findC1(b: Buffer, from: number, n: number): number {
  for (let p = b.indexOf(0xc2, from); p !== -1; p = b.indexOf(0xc2, p + 2)) {
    const d = b[p + 1];
    if (d >= 0x80 && d <= 0x9f) return p;
  }
  return n;
}

/** Index of the next U+FFFD (`EF BF BD`) at or after `from`, else `n`. */
function findReplacement(b: Buffer, from: number, n: number): number {
  const p = b.indexOf(REPLACEMENT, from);
  return p === -1 ? n : p;
}

/**
 * Writes the sanitized form of `src` (valid UTF-8) into `out` (at least `src.length` bytes: nothing
 * grows) and returns its length. Clean stretches are found with native byte searches (C1, U+FFFD)
 * and a word-at-a-time scan (C0, DEL) and copied as a whole.
 */
export function sanitizeUtf8Into(src: Buffer, out: Buffer): number {
  const n = src.length;
  let base = (4 - (src.byteOffset & 3)) & 3;
  let words: Int32Array = NO_WORDS;
  if (n - base >= 4) words = new Int32Array(src.buffer, src.byteOffset + base, (n - base) >> 2);
  else base = n;
  let o = 0;
  let run = 0;
  let nextControl = findControl(src, words, base, 0, n);
  let nextC1 = findC1(src, 0, n);
  let nextReplacement = findReplacement(src, 0, n);
  /** A DCS search from here on found no `ESC \`: a later one cannot either. */
  let noTerminatorFrom = n + 1;
  for (;;) {
    let i = Math.min(nextControl, nextC1, nextReplacement);
    if (i >= n) break;
    // Something goes at `i`: keep the clean run before it.
    if (i > run) o += src.copy(out, o, run, i);
    const c = src[i];
    if (c === ESC) {
      const next = i + 1 < n ? src[i + 1] : -1;
      let end = -1;
      if (next === 0x5d) {
        let j = i + 2;
        while (j < n && src[j] !== BEL && src[j] !== ESC) j++;
        if (j < n && src[j] === BEL) end = j + 1;
        else if (j + 1 < n && src[j + 1] === BACKSLASH) end = j + 2;
        else end = i + 2;
      } else if (next === 0x50 || next === 0x58 || next === 0x5e || next === 0x5f) {
        const from = i + 2;
        const k = from >= noTerminatorFrom ? -1 : src.indexOf(STRING_TERMINATOR, from);
        if (k === -1) {
          noTerminatorFrom = Math.min(noTerminatorFrom, from);
          end = i + 2;
        } else {
          end = k + 2;
        }
      } else if (next === 0x5b) {
        end = csiEnd(src, i + 2, n);
        if (end === -1) end = i + 2;
      } else {
        let j = i + 1;
        let d = next;
        while (d >= 0x20 && d <= 0x2f) d = ++j < n ? src[j] : -1;
        if (d >= 0x30 && d <= 0x7e) end = j + 1;
      }
      i = end === -1 ? i + 1 : end;
    } else if (c === CR) {
      out[o++] = LF;
      i += i + 1 < n && src[i + 1] === LF ? 2 : 1;
    } else if (c === 0xc2) {
      // C1: U+009B may start a CSI; any other goes alone.
      if (src[i + 1] === 0x9b) {
        const end = csiEnd(src, i + 2, n);
        i = end === -1 ? i + 2 : end;
      } else {
        i += 2;
      }
    } else if (c === 0xef) {
      i += 3; // U+FFFD
    } else {
      i++; // C0 or DEL
    }
    run = i;
    if (nextControl < i) nextControl = findControl(src, words, base, i, n);
    if (nextC1 < i) nextC1 = findC1(src, i, n);
    if (nextReplacement < i) nextReplacement = findReplacement(src, i, n);
  }
  if (n > run) o += src.copy(out, o, run, n);
  return o;
}

/**
 * Bytes of an escape sequence left open at the end of `b` (valid UTF-8), or 0: the byte form of
 * `incompleteEscapeSuffixLength` (sanitize.ts), for the streaming caller to hold back.
 */
export function incompleteEscapeSuffixBytes(b: Buffer): number {
  const n = b.length;
  const start = Math.max(b.lastIndexOf(ESC), b.lastIndexOf(C1_CSI));
  if (start === -1) return 0;
  let j: number;
  let c: number;
  if (b[start] === ESC) {
    j = start + 1;
    if (j === n) return n - start;
    c = b[j];
    if (c === 0x5b) {
      c = ++j < n ? b[j] : -1;
      while (c >= 0x30 && c <= 0x3f) c = ++j < n ? b[j] : -1;
    } else if (c === 0x5d) {
      c = ++j < n ? b[j] : -1;
      while (c !== -1 && c !== BEL && c !== ESC && c !== LF) c = ++j < n ? b[j] : -1;
      return c === -1 ? n - start : 0;
    }
  } else {
    j = start + 2;
    c = j < n ? b[j] : -1;
    while (c >= 0x30 && c <= 0x3f) c = ++j < n ? b[j] : -1;
  }
  while (c >= 0x20 && c <= 0x2f) c = ++j < n ? b[j] : -1;
  return c === -1 ? n - start : 0;
}
