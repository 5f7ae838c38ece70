// The last guard on result size (docs/ARCHITECTURE.md, Output): whatever route produced the text, a
// result body never goes much past the inline budget. Output that came through the OutputSink is already
// within it; this catches the routes that bypass the sink (client-terminal output) plus long notices.

import { artifactUrl } from './artifacts';
import { DEFAULT_INLINE_CAP_BYTES, INLINE_CAP_HEAD_RATIO, INLINE_CAP_TAIL_RATIO } from './outputLimits';

/** Saves the full text somewhere the model can read and returns its artifact id (or nothing). */
export type SaveArtifact = (fullText: string) => Promise<string | undefined> | string | undefined;

/** `[…<N>B elided…]`, the marker between the kept head and tail. */
export function inlineElisionMarker(elidedBytes: number): string {
  return `[…${elidedBytes}B elided…]`;
}

/** `[raw output: artifact://<id>]`, the footer pointing at the full text. */
export function rawOutputFooter(id: string): string {
  return `[raw output: ${artifactUrl(id)}]`;
}

/**
 * Returns `text` itself when its UTF-8 size is within `budget`; otherwise the first ~60% (cut back to
 * a line end), the marker, and the last ~25% (cut forward to a line start), then saves the full text
 * through `saveArtifact` and, when that yields an id, appends the raw-output footer.
 */
export async function enforceInlineByteCap(
  text: string,
  budget: number = DEFAULT_INLINE_CAP_BYTES,
  saveArtifact?: SaveArtifact,
): Promise<string> {
  // Fast exit without encoding: at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= budget) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= budget) return text;

  const headMax = Math.floor(budget * INLINE_CAP_HEAD_RATIO);
  let headEnd = bytes.lastIndexOf(0x0a, headMax - 1);
  if (headEnd <= 0) {
    // No line end to cut at: cut at a code point boundary instead.
    headEnd = headMax;
    while (headEnd > 0 && (bytes[headEnd] & 0xc0) === 0x80) headEnd--;
  }
  const tailMax = Math.floor(budget * INLINE_CAP_TAIL_RATIO);
  let tailStart = bytes.length - tailMax;
  const firstNewline = bytes.indexOf(0x0a, tailStart);
  if (firstNewline !== -1 && firstNewline + 1 < bytes.length) {
    tailStart = firstNewline + 1;
  } else {
    while (tailStart < bytes.length && (bytes[tailStart] & 0xc0) === 0x80) tailStart++;
  }
  const head = bytes.subarray(0, headEnd).toString('utf8');
  const tail = bytes.subarray(tailStart).toString('utf8');
  const elided = bytes.length - headEnd - (bytes.length - tailStart);
  let result = `${head}\n${inlineElisionMarker(elided)}\n${tail}`;

  const id = saveArtifact ? await saveArtifact(text) : undefined;
  if (id) result += `${result.endsWith('\n') ? '' : '\n'}${rawOutputFooter(id)}`;
  return result;
}
