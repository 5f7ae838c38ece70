// The one bounded tail of a stream: the last `maxBytes` bytes, cut so it never starts inside a UTF-8
// code point. Used for ACP's `outputByteLimit` (a bridge terminal's read-back), the streaming preview
// (docs/ARCHITECTURE.md, Output) and a background job's progress. Chunks are kept as they came and whole chunks are
// dropped from the front once the rest still covers the limit, so the hot path copies nothing;
// memory stays under maxBytes + one chunk (a chunk larger than that is cut on arrival).

import type { ToolResult } from '../contracts';
import { TAIL_BUFFER_MAX_PIECES, TAIL_PREVIEW_BYTES } from './outputLimits';

/** First index at or after `start` that begins a code point (skips 10xxxxxx continuation bytes). */
function codePointStart(bytes: Uint8Array, start: number): number {
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return start;
}

/** The last `maxBytes` bytes of `text`, starting on a code point (never half a character). */
export function utf8SafeTail(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  // Cheap bound: every UTF-16 unit is at most 3 bytes, so a short string cannot be over budget.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  return bytes.subarray(codePointStart(bytes, bytes.length - maxBytes)).toString('utf8');
}

export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(readonly maxBytes: number = TAIL_PREVIEW_BYTES) {}

  /** Bytes as they came (a chunk may end mid code point), or text (stored as its UTF-8). */
  push(chunk: Buffer | string): void {
    if (chunk.length === 0) return;
    if (this.maxBytes <= 0) {
      this.dropped = true;
      return;
    }
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (bytes.length > this.maxBytes) {
      // One chunk fills the window by itself: the older chunks cannot survive. A view keeps its whole
      // parent alive, so the kept part of a far larger chunk is copied (a pipe-sized one is not).
      const kept = bytes.subarray(bytes.length - this.maxBytes);
      bytes = bytes.length > this.maxBytes * 4 ? Buffer.from(kept) : kept;
      this.chunks = [];
      this.size = 0;
      this.dropped = true;
    }
    this.chunks.push(bytes);
    this.size += bytes.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0].length >= this.maxBytes) {
      this.size -= (this.chunks.shift() as Buffer).length;
      this.dropped = true;
    }
    if (this.chunks.length > TAIL_BUFFER_MAX_PIECES) this.compact();
  }

  /** True once any byte was dropped from the front. */
  get truncated(): boolean {
    return this.dropped || this.size > this.maxBytes;
  }

  /** Byte length of the kept window (at most `maxBytes`; `text()` may start a few bytes later). */
  get byteLength(): number {
    return Math.min(this.size, this.maxBytes);
  }

  /** The current tail, at most `maxBytes` bytes, decoded (an unfinished last code point reads as U+FFFD). */
  text(): string {
    if (this.size === 0) return '';
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    let start = Math.max(0, all.length - this.maxBytes);
    if (start > 0 || this.dropped) start = codePointStart(all, start);
    return all.subarray(start).toString('utf8');
  }

  /** Many tiny chunks (a byte at a time) would make every `text()` join thousands of pieces. */
  private compact(): void {
    let all = Buffer.concat(this.chunks, this.size);
    if (all.length > this.maxBytes) {
      all = Buffer.from(all.subarray(all.length - this.maxBytes));
      this.dropped = true;
    }
    this.chunks = [all];
    this.size = all.length;
  }
}

/**
 * Returns an `onChunk` that appends to `tail` and reports the whole current tail (not a delta) as a
 * partial result, as oh-my-pi's `streamTailUpdates` does.
 */
export function streamTailUpdates(tail: TailBuffer, onUpdate: (update: ToolResult) => void): (chunk: string) => void {
  return (chunk: string) => {
    tail.push(chunk);
    onUpdate({ content: [{ type: 'text', text: tail.text() }], details: {} });
  };
}
