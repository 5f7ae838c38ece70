// The collapsed preview of a user `!command` (§7.3): the last 20 logical lines, each clamped to
// 4000 visible columns. Columns, not characters: a CJK character or an emoji takes two cells, a
// combining mark or an ANSI escape none, and the clamp is about what fits on screen.

export const PREVIEW_LINES = 20;
export const MAX_DISPLAY_LINE_COLUMNS = 4000;
export const omittedColumnsSuffix = (n: number): string => `… [${n} visible columns omitted]`;

// CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`) and two-byte escapes: zero width on screen.
// eslint-disable-next-line no-control-regex -- terminal escapes are what it matches.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/y;
// eslint-disable-next-line no-misleading-character-class -- variation selectors are matched one by one, on purpose.
const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\u200b\ufe00-\ufe0f]/u;
const EMOJI = /\p{Emoji_Presentation}/u;

/** East Asian Wide and Fullwidth blocks (UAX #11), the ranges a terminal draws two cells wide. */
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

/** Cells one code point takes. */
export function codePointWidth(cp: number, ch: string): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  if (ZERO_WIDTH.test(ch)) return 0;
  if (EMOJI.test(ch)) return 2;
  for (const [lo, hi] of WIDE_RANGES) {
    if (cp < lo) break;
    if (cp <= hi) return 2;
  }
  return 1;
}

interface Cell {
  /** Index in the string where this piece starts. */
  start: number;
  end: number;
  width: number;
}

/** Splits a line into escapes (width 0) and code points (their width). */
function cells(line: string): Cell[] {
  const out: Cell[] = [];
  let i = 0;
  while (i < line.length) {
    if (line.charCodeAt(i) === 0x1b) {
      ANSI.lastIndex = i;
      const m = ANSI.exec(line);
      if (m) {
        out.push({ start: i, end: i + m[0].length, width: 0 });
        i += m[0].length;
        continue;
      }
    }
    const cp = line.codePointAt(i) as number;
    const ch = String.fromCodePoint(cp);
    out.push({ start: i, end: i + ch.length, width: codePointWidth(cp, ch) });
    i += ch.length;
  }
  return out;
}

/** Terminal columns `text` occupies (one line; ANSI escapes ignored). */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const cell of cells(text)) width += cell.width;
  return width;
}

/**
 * `line` cut to `maxColumns` visible columns plus `… [N visible columns omitted]`; unchanged when
 * it fits. A wide character that would straddle the limit is dropped whole (it would not fit).
 */
export function clampLine(line: string, maxColumns = MAX_DISPLAY_LINE_COLUMNS): string {
  // Fast path: every code unit is at most two columns.
  if (line.length * 2 <= maxColumns) return line;
  const parts = cells(line);
  let total = 0;
  for (const cell of parts) total += cell.width;
  if (total <= maxColumns) return line;
  let kept = 0;
  let end = 0;
  for (const cell of parts) {
    if (kept + cell.width > maxColumns) break;
    kept += cell.width;
    end = cell.end;
  }
  return `${line.slice(0, end)}${omittedColumnsSuffix(total - kept)}`;
}

export interface BangPreview {
  text: string;
  /** Logical lines above the preview. */
  hiddenLines: number;
}

/** The last `lines` logical lines of `output` (a final newline does not make an empty line), clamped. */
export function bangPreview(output: string, lines = PREVIEW_LINES, maxColumns = MAX_DISPLAY_LINE_COLUMNS): BangPreview {
  if (output === '') return { text: '', hiddenLines: 0 };
  const all = (output.endsWith('\n') ? output.slice(0, -1) : output).split('\n');
  const shown = all.slice(Math.max(0, all.length - lines));
  return { text: shown.map((line) => clampLine(line, maxColumns)).join('\n'), hiddenLines: all.length - shown.length };
}
