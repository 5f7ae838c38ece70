// Makes terminal output safe and readable for a model (docs/ARCHITECTURE.md, Output): escape sequences
// and control characters are removed, `\t` and `\n` are kept, and replacement characters produced by
// invalid input are dropped rather than shown.

/* eslint-disable no-control-regex -- control characters are what this file's patterns match. */
/**
 * Anything that could need work: C0 (any, since `\r` also goes), DEL, C1, U+FFFD and surrogate halves
 * (in `u` mode a well-formed pair is one code point and does not match; a lone half does). `\t` and `\n` are excluded so that ordinary text takes the fast path.
 */
const NEEDS_SANITIZE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd\ud800-\udfff]/u;

/**
 * ANSI/ECMA-48 sequences, tried in this order:
 * - OSC `ESC ] … (BEL | ESC \)` (titles, hyperlinks);
 * - DCS/SOS/PM/APC `ESC P|X|^|_ … ESC \` (sixel and friends; lazy so two payloads are two matches);
 * - CSI `ESC [ params intermediates final` and its 8-bit form `0x9B …`;
 * - any other escape: `ESC intermediates* final` (`ESC ( B`, `ESC 7`, `ESC =`, `ESC c`).
 */
const ANSI_SEQUENCE =
  /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][\s\S]*?\x1b\\|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]/g;

/** C0 controls except `\t` (0x09) and `\n` (0x0A), DEL, C1. */
const CONTROL_CHARS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** U+FFFD and unpaired surrogate halves (the latter become U+FFFD in UTF-8 anyway, then go too). */
const REPLACEMENT_AND_LONE_SURROGATES = /[\ufffd\ud800-\udfff]/gu;

/** An escape sequence that a chunk boundary cut off (see `ESCAPE_CARRY_MAX_BYTES`). */
const INCOMPLETE_ESCAPE_AT_END = /(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b\n]*|[ -/]*)?|\x9b[0-?]*[ -/]*)$/;

/** True when `sanitizeText` would change `text`. */
export function needsSanitize(text: string): boolean {
  return NEEDS_SANITIZE.test(text);
}

/**
 * Strips ANSI sequences, C0 controls (except tab and newline), DEL, C1 controls, U+FFFD and lone
 * surrogates. Returns the same string when there is nothing to do.
 */
export function sanitizeText(text: string): string {
  if (!NEEDS_SANITIZE.test(text)) return text;
  return text.replace(ANSI_SEQUENCE, '').replace(CONTROL_CHARS, '').replace(REPLACEMENT_AND_LONE_SURROGATES, '');
}

/** CRLF and lone CR become LF, so progress frames (`\r`) turn into separate lines. */
export function normalizeLineEndings(text: string): string {
  return text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n');
}

/**
 * Length (in UTF-16 units) of an escape sequence left open at the end of `text`, or 0. A streaming
 * caller holds that part back until the next chunk completes it.
 */
export function incompleteEscapeSuffixLength(text: string): number {
  const from = text.lastIndexOf('\x1b');
  const from8 = text.lastIndexOf('\x9b');
  const start = Math.max(from, from8);
  if (start === -1) return 0;
  const m = INCOMPLETE_ESCAPE_AT_END.exec(text.slice(start));
  return m !== null && m.index === 0 ? text.length - start : 0;
}
