// The streaming preview (oh-my-pi §5.4): the last `maxBytes` of sanitized text, shown to the host as
// the partial result while a command runs. Bounded and cheap to append to.

import type { ToolResult } from '../contracts';
import { TAIL_BUFFER_MAX_PIECES, TAIL_PREVIEW_BYTES } from './outputLimits';

/** The last `maxBytes` bytes of `text`, starting on a code point (never half a character). */
export function utf8SafeTail(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  // Cheap bound: every UTF-16 unit is at most 3 bytes, so a short string cannot be over budget.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - maxBytes;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString('utf8');
}

export class TailBuffer {
  private pieces: string[] = [];
  private bytes = 0;

  constructor(readonly maxBytes: number = TAIL_PREVIEW_BYTES) {}

  append(chunk: string): void {
    if (chunk.length === 0) return;
    const size = Buffer.byteLength(chunk, 'utf8');
    if (size >= this.maxBytes) {
      // One chunk fills the window by itself: the older pieces cannot survive.
      const tail = utf8SafeTail(chunk, this.maxBytes);
      this.pieces = [tail];
      this.bytes = Buffer.byteLength(tail, 'utf8');
      return;
    }
    this.pieces.push(chunk);
    this.bytes += size;
    if (this.pieces.length > TAIL_BUFFER_MAX_PIECES) this.compact();
    // Trimming only past twice the budget keeps the cost amortized over many appends.
    if (this.bytes > this.maxBytes * 2) this.trim();
  }

  /** The current tail, at most `maxBytes` bytes. */
  text(): string {
    this.trim();
    return this.pieces.length === 0 ? '' : this.pieces.join('');
  }

  /** Byte length of what `text()` would return once trimmed (before: possibly up to twice that). */
  get byteLength(): number {
    return Math.min(this.bytes, this.maxBytes);
  }

  private compact(): void {
    this.pieces = [this.pieces.join('')];
  }

  private trim(): void {
    if (this.bytes <= this.maxBytes) {
      if (this.pieces.length > 1) this.compact();
      return;
    }
    const tail = utf8SafeTail(this.pieces.join(''), this.maxBytes);
    this.pieces = [tail];
    this.bytes = Buffer.byteLength(tail, 'utf8');
  }
}

/**
 * Returns an `onChunk` that appends to `tail` and reports the whole current tail (not a delta) as a
 * partial result, as oh-my-pi's `streamTailUpdates` does.
 */
export function streamTailUpdates(tail: TailBuffer, onUpdate: (update: ToolResult) => void): (chunk: string) => void {
  return (chunk: string) => {
    tail.append(chunk);
    onUpdate({ content: [{ type: 'text', text: tail.text() }], details: {} });
  };
}
