// The bounded output collector of every local run (docs/ARCHITECTURE.md, Output). It takes raw bytes as
// they arrive, turns them into sanitized UTF-8 lines, and keeps only a head window and a tail window in
// memory; the complete sanitized stream goes to an artifact file once it no longer fits (or once a line
// had to be cut), so memory stays bounded however much a command prints.
//
// Design: the hot path works on bytes, not strings. A chunk that is valid UTF-8 with no control
// characters (the common case) is never decoded: newlines are found with a native byte search,
// the column cap looks at line lengths only, and the bytes are copied into the windows and written
// to the artifact as they are. Chunks with escapes, CRs or controls that are valid UTF-8 are
// sanitized in one pass over their bytes (sanitizeBytes.ts); only invalid UTF-8 is decoded and
// re-encoded (the slow path), and only `onChunk` listeners cause a decode of clean chunks.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { isUtf8 } from 'node:buffer';
import type { OutputSinkLike, OutputSinkOptions, OutputSummary } from './outputContracts';
import {
  CHUNK_PENDING_MAX_BYTES,
  COLUMN_ELLIPSIS,
  DEFAULT_CHUNK_THROTTLE_MS,
  DEFAULT_HEAD_BYTES,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_COLUMNS,
  ESCAPE_CARRY_MAX_BYTES,
} from './outputLimits';
import { incompleteEscapeSuffixLength, sanitizeText } from './sanitize';
import { incompleteEscapeSuffixBytes, sanitizeUtf8Into } from './sanitizeBytes';

const LF = 0x0a;
const CR = 0x0d;
const NEWLINE_BYTES = Buffer.from('\n');
const ELLIPSIS_BYTES = Buffer.from(COLUMN_ELLIPSIS, 'utf8');
const REPLACEMENT_CHAR_BYTES = Buffer.from('\ufffd', 'utf8');
const EMPTY = Buffer.alloc(0);
/** The sanitizing path's reusable output buffer: a pipe read (64 KiB) plus what a chunk boundary held back. */
const SCRATCH_MAX_BYTES = 128 * 1024;

/** The marker that replaces the middle of a stream too long for head + tail. */
export function elisionMarker(elidedLines: number, elidedBytes: number): string {
  return elidedLines <= 1 ? `[…${elidedBytes}B elided…]` : `[…${elidedLines}ln elided…]`;
}

/** The line `dump(notice)` puts before the body. */
export function noticeLine(notice: string): string {
  return `[${notice}]\n`;
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Bytes at the end of `b` that start a UTF-8 sequence whose remaining bytes have not arrived. */
function incompleteUtf8Tail(b: Uint8Array): number {
  const n = b.length;
  // A sequence is at most 4 bytes, so its lead byte is within the last 3 when it is incomplete.
  for (let back = 1; back <= 3 && back <= n; back++) {
    const c = b[n - back];
    if (c < 0x80) return 0;
    if (c >= 0xc0) {
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return need > back ? back : 0;
    }
  }
  return 0;
}

function isControlByte(c: number): boolean {
  return (c < 0x20 && c !== 0x09 && c !== LF) || c === 0x7f;
}

/**
 * True when `b` needs no sanitizing: valid UTF-8, no C0 controls except tab/newline, no DEL, no
 * C1 (U+0080–U+009F, encoded `C2 80`–`C2 9F`) and no U+FFFD. Four bytes are tested at a time
 * (SWAR): a word is looked at byte by byte only when it may hold a byte below 0x20 or a 0x7F,
 * which for text means "holds a newline or tab".
 */
function isCleanUtf8(b: Buffer): boolean {
  const n = b.length;
  let i = 0;
  let high = 0;
  while (i < n && ((b.byteOffset + i) & 3) !== 0) {
    const c = b[i++];
    if (isControlByte(c)) return false;
    high |= c;
  }
  const words = (n - i) >> 2;
  if (words > 0) {
    const w = new Int32Array(b.buffer, b.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const x = w[k];
      high |= x;
      const below20 = (x - 0x20202020) & ~x & 0x80808080;
      const y = x ^ 0x7f7f7f7f;
      const is7f = (y - 0x01010101) & ~y & 0x80808080;
      if ((below20 | is7f) !== 0) {
        const base = i + (k << 2);
        if (isControlByte(b[base]) || isControlByte(b[base + 1]) || isControlByte(b[base + 2]) || isControlByte(b[base + 3])) {
          return false;
        }
      }
    }
    i += words << 2;
  }
  for (; i < n; i++) {
    const c = b[i];
    if (isControlByte(c)) return false;
    high |= c;
  }
  if ((high & 0x80808080) === 0) return true;
  if (!isUtf8(b)) return false;
  for (let p = b.indexOf(0xc2); p !== -1; p = b.indexOf(0xc2, p + 1)) {
    const next = b[p + 1];
    if (next >= 0x80 && next <= 0x9f) return false;
  }
  return b.indexOf(REPLACEMENT_CHAR_BYTES) === -1;
}

function asBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Number of `\n` bytes in `b`. */
/** Lines in `b`: its newlines, plus one for text after the last newline. */
function lineCount(b: Buffer): number {
  return countNewlines(b) + (b.length > 0 && b[b.length - 1] !== LF ? 1 : 0);
}

function countNewlines(b: Buffer): number {
  let count = 0;
  for (let p = b.indexOf(LF); p !== -1; p = b.indexOf(LF, p + 1)) count++;
  return count;
}

export class OutputSink implements OutputSinkLike {
  // ---- options ----
  private readonly maxColumns: number;
  private readonly spillThreshold: number;
  private readonly headLimit: number;
  private readonly artifactPath: string | undefined;
  private readonly artifactId: string | undefined;
  private readonly onChunk: ((text: string) => void) | undefined;
  private readonly throttleMs: number;

  // ---- decode stage (raw bytes → sanitized bytes) ----
  /** Raw bytes held for the next chunk: an incomplete UTF-8 sequence or escape sequence. */
  private carry: Buffer = EMPTY;
  /** A trailing CR waits for the next byte: CRLF is one newline, a lone CR is one too. */
  private heldCR = false;
  /** Where `decodeUtf8` writes sanitized bytes. */
  private scratch: Buffer = EMPTY;

  // ---- line stage (sanitized bytes → totals, column cap, windows, artifact) ----
  /** Sanitized bytes of the current line held until we know whether the line will be cut. */
  private pending: Buffer = EMPTY;
  /** Uncapped bytes of the current line already committed. */
  private lineBytes = 0;
  /** The current line was cut; its bytes feed `lineEndBuf` until its newline. */
  private lineCut = false;
  /** The current line has begun (bytes of it were seen). */
  private lineOpen = false;
  /** The current line started after the stream passed the budget: it may be cut. */
  private lineCapped = false;
  /** Bytes of a cut line kept from its start. */
  private lineHeadKept = 0;
  /** The last bytes of the line being cut (rolling, twice `keepTail` so trimming is rare). */
  private lineEndBuf: Buffer = EMPTY;
  private lineEndLen = 0;
  /**
   * Where the kept ends of the lines cut in one `lines` call are copied (views of it go into the
   * windows before the call returns), so a cut line costs no allocation of its own.
   */
  private endsScratch: Buffer = EMPTY;
  private endsUsed = 0;
  /** A cut line keeps `keepHead` bytes of its start, `…`, and `keepTail` bytes of its end. */
  private readonly keepHead: number;
  private readonly keepTail: number;

  // ---- totals ----
  private sawData = false;
  /** The stream so far ends with a newline: that newline ends the last line, it starts no new one. */
  private endsWithNewline = false;
  private totalBytes = 0;
  private newlineCount = 0;
  private columnDroppedBytes = 0;
  private columnTruncatedLines = 0;
  /** Bytes of the capped stream (what the windows are cut from). */
  private cappedBytes = 0;

  // ---- windows ----
  private readonly head: Buffer;
  private headLen = 0;
  private headClosed = false;
  private tail: Buffer = EMPTY;
  private tailLen = 0;
  /** Bytes the tail window may show; fixed once the head closes. */
  private tailLimit = 0;
  /** Bytes that went into the tail window in total (to tell whether it dropped any). */
  private tailReceived = 0;

  // ---- artifact ----
  private fd: number | undefined;
  private artifactOpened = false;
  private artifactFailed = false;

  // ---- onChunk throttle ----
  private pendingText: string[] = [];
  /** UTF-16 length of `pendingText`: a cheap stand-in for its size. */
  private pendingTextLength = 0;
  private lastEmit = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  private finalized = false;

  constructor(opts: OutputSinkOptions = {}) {
    this.maxColumns = Math.max(0, Math.floor(opts.maxColumns ?? DEFAULT_MAX_COLUMNS));
    const keep = Math.max(0, this.maxColumns - ELLIPSIS_BYTES.length);
    this.keepHead = Math.ceil(keep / 2);
    this.keepTail = keep - this.keepHead;
    if (this.keepTail > 0) this.lineEndBuf = Buffer.allocUnsafe(this.keepTail * 2);
    // The executor never passes spillThreshold, so the budget is DEFAULT_MAX_BYTES; tests may.
    this.spillThreshold = Math.max(1, Math.floor(opts.spillThreshold ?? DEFAULT_MAX_BYTES));
    this.headLimit = Math.max(0, Math.min(Math.floor(opts.headBytes ?? DEFAULT_HEAD_BYTES), Math.floor(this.spillThreshold / 2)));
    this.head = Buffer.allocUnsafe(this.headLimit);
    if (this.headLimit === 0) this.openTail(this.spillThreshold);
    this.artifactPath = opts.artifactPath;
    this.artifactId = opts.artifactId;
    this.onChunk = opts.onChunk;
    this.throttleMs = Math.max(0, opts.chunkThrottleMs ?? DEFAULT_CHUNK_THROTTLE_MS);
  }

  push(chunk: Uint8Array | string): void {
    if (this.finalized) return;
    let b = asBuffer(chunk);
    if (b.length === 0) return;
    if (this.carry.length > 0) {
      const used = this.completeCarriedCodePoint(b);
      if (used >= 0) {
        b = b.subarray(used);
        if (b.length === 0) {
          this.flushTextIfDue();
          return;
        }
      } else {
        b = Buffer.concat([this.carry, b]);
        this.carry = EMPTY;
      }
    }
    const incomplete = incompleteUtf8Tail(b);
    if (incomplete > 0) {
      // Copied: the caller may reuse its buffer.
      this.carry = Buffer.from(b.subarray(b.length - incomplete));
      b = b.subarray(0, b.length - incomplete);
      if (b.length === 0) return;
    }
    this.decode(b, false);
    this.flushTextIfDue();
  }

  /**
   * When the carry is only a code point that the previous chunk cut (no escape held with it) and `b`
   * starts with the rest of it, decodes that code point on its own and returns how many bytes of `b`
   * it took; else -1 (the caller joins carry and chunk, a copy of the whole chunk). Decoding it apart
   * changes nothing: it is an ordinary character (not C1, not U+FFFD, valid), so no sequence starts
   * or ends in it, and the line stage does not depend on where chunks are cut.
   */
  private completeCarriedCodePoint(b: Buffer): number {
    const carry = this.carry;
    const lead = carry[0];
    // 0xC2 leads C1 controls (and a held 8-bit CSI), 0xEF leads U+FFFD: those need their context.
    if (lead < 0xc3 || lead === 0xef || lead > 0xf4 || carry.length > 3) return -1;
    const need = (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2) - carry.length;
    if (need <= 0 || b.length < need) return -1;
    for (let i = 0; i < need; i++) if (!isContinuation(b[i])) return -1;
    const piece = Buffer.concat([carry, b.subarray(0, need)]);
    if (!isUtf8(piece)) return -1;
    this.carry = EMPTY;
    this.decode(piece, false);
    return need;
  }

  async dump(notice?: string): Promise<OutputSummary> {
    if (!this.finalized) {
      this.finish();
    }
    return this.summarize(notice);
  }

  dispose(): void {
    if (this.finalized) {
      this.closeArtifact();
      return;
    }
    this.finalized = true;
    this.clearTimer();
    this.pendingText = [];
    this.closeArtifact();
  }

  // ---- decode stage ----

  /** `b` holds whole UTF-8 sequences (or invalid bytes); `final` flushes whatever is held. */
  private decode(b: Buffer, final: boolean): void {
    if (this.heldCR) {
      this.heldCR = false;
      // CRLF → the LF below is the newline; a lone CR becomes one.
      if (b[0] !== LF) this.lines(NEWLINE_BYTES, final && b.length === 0);
    }
    if (b.length === 0) return;
    if (isCleanUtf8(b)) {
      this.lines(b, final);
      return;
    }
    if (isUtf8(b)) {
      this.decodeUtf8(b, final);
      return;
    }
    let text = b.toString('utf8');
    if (!final) {
      if (text.charCodeAt(text.length - 1) === CR) {
        this.heldCR = true;
        text = text.slice(0, -1);
      } else {
        const open = incompleteEscapeSuffixLength(text);
        if (open > 0) {
          const held = Buffer.from(text.slice(text.length - open), 'utf8');
          if (held.length <= ESCAPE_CARRY_MAX_BYTES) {
            this.carry = this.carry.length > 0 ? Buffer.concat([held, this.carry]) : held;
            text = text.slice(0, text.length - open);
          }
        }
      }
    }
    if (text.indexOf('\r') !== -1) text = text.replace(/\r\n?/g, '\n');
    text = sanitizeText(text);
    if (text.length > 0) this.lines(Buffer.from(text, 'utf8'), final);
  }

  /** The slow path's common case, valid UTF-8 (escapes, CRs, controls): one pass over the bytes. */
  private decodeUtf8(input: Buffer, final: boolean): void {
    let b = input;
    if (!final) {
      if (b[b.length - 1] === CR) {
        this.heldCR = true;
        b = b.subarray(0, b.length - 1);
      } else {
        const open = incompleteEscapeSuffixBytes(b);
        if (open > 0 && open <= ESCAPE_CARRY_MAX_BYTES) {
          // Copied: the caller may reuse its buffer.
          const held = Buffer.from(b.subarray(b.length - open));
          this.carry = this.carry.length > 0 ? Buffer.concat([held, this.carry]) : held;
          b = b.subarray(0, b.length - open);
        }
      }
    }
    if (b.length === 0) return;
    // Reused for pipe-sized chunks: `lines` copies what it keeps (pending, windows, artifact) and
    // holds no view of its input. A larger one-off chunk gets its own buffer, so none stays allocated.
    let out: Buffer;
    if (b.length > SCRATCH_MAX_BYTES) {
      out = Buffer.allocUnsafe(b.length);
    } else {
      if (this.scratch.length < b.length) this.scratch = Buffer.allocUnsafe(SCRATCH_MAX_BYTES);
      out = this.scratch;
    }
    const length = sanitizeUtf8Into(b, out);
    if (length > 0) this.lines(out.subarray(0, length), final);
  }

  private finish(): void {
    this.finalized = true;
    const carry = this.carry;
    this.carry = EMPTY;
    // Also resolves a held CR (as a newline) when the carry is empty.
    this.decode(carry, true);
    if (this.pending.length > 0 || this.lineCut) this.lines(EMPTY, true);
    this.clearTimer();
    this.emitText();
    this.closeArtifact();
  }

  // ---- line stage ----

  /**
   * Takes sanitized bytes of whole code points. A line is cut only when the whole output would not
   * fit: one that starts after the stream has passed the budget (`spillThreshold`) and is longer
   * than `maxColumns` keeps its first and its last bytes around `…`. Bytes of such a line between
   * its head share and `maxColumns` are held back (at most a few hundred bytes) until the line
   * either ends or grows past the cap, so a cut never depends on where a chunk boundary fell.
   */
  private lines(input: Buffer, final: boolean): void {
    let x = input;
    if (this.pending.length > 0) {
      x = x.length > 0 ? Buffer.concat([this.pending, x]) : this.pending;
      this.pending = EMPTY;
    }
    const n = x.length;
    if (n === 0 && !(final && this.lineCut)) return;
    this.endsUsed = 0;
    const max = this.maxColumns;
    const keepHead = this.keepHead;
    let commitEnd = n;
    let newlines = 0;
    // Capped output as views of `x`, ellipses and kept line ends; stays undefined while nothing is cut.
    let capped: Buffer[] | undefined;
    let cappedFrom = 0;
    let cutHere = false;
    let pos = 0;
    for (;;) {
      const nl = x.indexOf(LF, pos);
      const lineEnd = nl === -1 ? n : nl;
      // Nothing is cut before the budget is passed, so until then `cappedBytes + pos` is exact.
      if (!this.lineOpen) this.lineCapped = max > 0 && this.cappedBytes + pos > this.spillThreshold;
      if (this.lineCut) {
        // The middle of a line cut earlier: dropped, its last bytes remembered for its end.
        capped ??= [];
        if (pos > cappedFrom) capped.push(x.subarray(cappedFrom, pos));
        this.rememberLineEnd(x.subarray(pos, lineEnd));
        this.lineBytes += lineEnd - pos;
        cappedFrom = lineEnd;
        if (nl !== -1 || final) capped.push(ELLIPSIS_BYTES, this.takeLineEnd());
        if (nl === -1) break;
      } else if (this.lineCapped) {
        const length = this.lineBytes + (lineEnd - pos);
        if (length > max) {
          let cut = pos + Math.max(0, keepHead - this.lineBytes);
          while (cut > pos && isContinuation(x[cut])) cut--;
          capped ??= [];
          capped.push(x.subarray(cappedFrom, cut));
          this.lineHeadKept = this.lineBytes + (cut - pos);
          this.lineEndLen = 0;
          this.rememberLineEnd(x.subarray(cut, lineEnd));
          this.lineBytes = length;
          cappedFrom = lineEnd;
          this.columnTruncatedLines++;
          cutHere = true;
          if (nl !== -1 || final) capped.push(ELLIPSIS_BYTES, this.takeLineEnd());
          else this.lineCut = true;
          if (nl === -1) {
            this.lineOpen = true;
            break;
          }
        } else if (nl === -1) {
          if (!final && length > keepHead) {
            let hold = pos + Math.max(0, keepHead - this.lineBytes);
            while (hold > pos && isContinuation(x[hold])) hold--;
            this.pending = Buffer.from(x.subarray(hold));
            commitEnd = hold;
            this.lineBytes += hold - pos;
          } else {
            this.lineBytes = length;
          }
          if (lineEnd > pos) this.lineOpen = true;
          break;
        }
      } else if (nl === -1) {
        this.lineBytes += lineEnd - pos;
        if (lineEnd > pos) this.lineOpen = true;
        break;
      }
      newlines++;
      this.lineBytes = 0;
      this.lineOpen = false;
      pos = nl + 1;
    }

    const uncapped = commitEnd === n ? x : x.subarray(0, commitEnd);
    if (uncapped.length === 0 && capped === undefined) return;
    if (uncapped.length > 0) {
      this.sawData = true;
      this.endsWithNewline = uncapped[uncapped.length - 1] === LF;
      this.totalBytes += uncapped.length;
      this.newlineCount += newlines;
      if (this.onChunk) this.queueText(uncapped.toString('utf8'));
    }

    let cappedLen: number;
    if (capped === undefined) {
      cappedLen = uncapped.length;
    } else {
      if (commitEnd > cappedFrom) capped.push(x.subarray(cappedFrom, commitEnd));
      cappedLen = 0;
      for (const piece of capped) cappedLen += piece.length;
    }

    if (this.artifactPath !== undefined && this.fd === undefined && !this.artifactFailed) {
      if (cutHere || this.cappedBytes + cappedLen > this.spillThreshold) this.openArtifact();
    }
    if (this.fd !== undefined && uncapped.length > 0) this.writeArtifact(uncapped);

    this.cappedBytes += cappedLen;
    if (capped === undefined) this.keep(uncapped);
    else for (const piece of capped) this.keep(piece);
  }

  /** Keeps the last `keepTail` bytes of the line being cut (a rolling window). */
  private rememberLineEnd(b: Buffer): void {
    const limit = this.keepTail;
    if (limit === 0 || b.length === 0) return;
    if (b.length >= limit) {
      b.copy(this.lineEndBuf, 0, b.length - limit);
      this.lineEndLen = limit;
      return;
    }
    if (this.lineEndLen + b.length > this.lineEndBuf.length) {
      const keepBytes = limit - b.length;
      this.lineEndBuf.copyWithin(0, this.lineEndLen - keepBytes, this.lineEndLen);
      this.lineEndLen = keepBytes;
    }
    b.copy(this.lineEndBuf, this.lineEndLen);
    this.lineEndLen += b.length;
  }

  /**
   * The cut line's kept end (starting on a code point), copied into `endsScratch` for the rest of this
   * `lines` call, and its dropped-bytes count.
   */
  private takeLineEnd(): Buffer {
    let start = Math.max(0, this.lineEndLen - this.keepTail);
    while (start < this.lineEndLen && isContinuation(this.lineEndBuf[start])) start++;
    const length = this.lineEndLen - start;
    if (this.endsUsed + length > this.endsScratch.length) {
      // Earlier views keep the old buffer alive until the call is over; the new one is reused after.
      this.endsScratch = Buffer.allocUnsafeSlow(Math.max(64 * 1024, 2 * (this.endsUsed + length)));
      this.endsUsed = 0;
    }
    const end = this.endsScratch.subarray(this.endsUsed, this.endsUsed + length);
    this.lineEndBuf.copy(end, 0, start, this.lineEndLen);
    this.endsUsed += length;
    this.columnDroppedBytes += this.lineBytes - this.lineHeadKept - end.length;
    this.lineEndLen = 0;
    this.lineCut = false;
    return end;
  }

  // ---- windows ----

  private openTail(limit: number): void {
    this.tailLimit = Math.max(1, limit);
    // Twice the limit so trimming (a copy) happens at most once per `limit` bytes appended.
    this.tail = Buffer.allocUnsafe(this.tailLimit * 2);
  }

  /** Appends capped bytes: head first (UTF-8-safe cut), then the tail window. */
  private keep(piece: Buffer): void {
    let b = piece;
    if (b.length === 0) return;
    if (!this.headClosed && this.headLimit > 0) {
      const room = this.headLimit - this.headLen;
      if (b.length < room) {
        b.copy(this.head, this.headLen);
        this.headLen += b.length;
        return;
      }
      let cut = room;
      while (cut > 0 && cut < b.length && isContinuation(b[cut])) cut--;
      b.copy(this.head, this.headLen, 0, cut);
      this.headLen += cut;
      this.headClosed = true;
      this.openTail(this.spillThreshold - this.headLen);
      b = b.subarray(cut);
      if (b.length === 0) return;
    }
    this.appendTail(b);
  }

  private appendTail(b: Buffer): void {
    const limit = this.tailLimit;
    this.tailReceived += b.length;
    if (b.length >= limit) {
      b.copy(this.tail, 0, b.length - limit);
      this.tailLen = limit;
      return;
    }
    if (this.tailLen + b.length > this.tail.length) {
      const keepBytes = limit - b.length;
      this.tail.copyWithin(0, this.tailLen - keepBytes, this.tailLen);
      this.tailLen = keepBytes;
    }
    b.copy(this.tail, this.tailLen);
    this.tailLen += b.length;
  }

  /** The tail window's bytes: the last `tailLimit` bytes, starting on a code point. */
  private tailView(): Buffer {
    if (this.tailLen === 0) return EMPTY;
    let start = Math.max(0, this.tailLen - this.tailLimit);
    if (this.tailReceived > this.tailLimit) {
      while (start < this.tailLen && isContinuation(this.tail[start])) start++;
    }
    return this.tail.subarray(start, this.tailLen);
  }

  // ---- artifact ----

  private openArtifact(): void {
    const file = this.artifactPath;
    if (file === undefined) return;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // A synchronous fd keeps memory flat: nothing queues behind a slow disk.
      this.fd = fs.openSync(file, 'w');
      this.artifactOpened = true;
      // Nothing was cut or dropped yet (either would have opened the file earlier), so head + tail
      // are exactly the stream so far and the file becomes the complete stream.
      this.writeArtifact(this.head.subarray(0, this.headLen));
      this.writeArtifact(this.tail.subarray(0, this.tailLen));
    } catch {
      this.failArtifact();
    }
  }

  private writeArtifact(b: Buffer): void {
    const fd = this.fd;
    if (fd === undefined) return;
    try {
      let off = 0;
      while (off < b.length) off += fs.writeSync(fd, b, off, b.length - off);
    } catch {
      this.failArtifact();
    }
  }

  /** Output errors are not the command's fault: the run goes on, only without an artifact. */
  private failArtifact(): void {
    this.artifactFailed = true;
    this.artifactOpened = false;
    this.closeArtifact();
  }

  private closeArtifact(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) return;
    try {
      fs.closeSync(fd);
    } catch {
      // Already closed or broken: nothing left to release.
    }
  }

  // ---- onChunk throttle ----

  private queueText(text: string): void {
    this.pendingText.push(text);
    this.pendingTextLength += text.length;
  }

  private flushTextIfDue(): void {
    if (!this.onChunk || this.pendingText.length === 0) return;
    const now = Date.now();
    const wait = this.throttleMs - (now - this.lastEmit);
    if (wait <= 0 || this.pendingTextLength >= CHUNK_PENDING_MAX_BYTES) {
      this.clearTimer();
      this.emitText();
      return;
    }
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (!this.finalized) this.emitText();
      }, wait);
      // A quiet tail must not keep the process alive on its own.
      this.timer.unref();
    }
  }

  private emitText(): void {
    if (!this.onChunk || this.pendingText.length === 0) return;
    const text = this.pendingText.length === 1 ? this.pendingText[0] : this.pendingText.join('');
    this.pendingText = [];
    this.pendingTextLength = 0;
    this.lastEmit = Date.now();
    this.onChunk(text);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  // ---- summary ----

  private summarize(notice: string | undefined): OutputSummary {
    const prefix = notice === undefined ? '' : noticeLine(notice);
    const head = this.head.subarray(0, this.headLen);
    const tail = this.tailView();
    // `seq 1 3` is 3 lines, not 4: a final newline ends a line (oh-my-pi counted one more).
    const totalLines = this.sawData ? this.newlineCount + (this.endsWithNewline ? 0 : 1) : 0;
    const kept = head.length + tail.length;
    const summary: OutputSummary = {
      output: '',
      truncated: false,
      totalLines,
      totalBytes: this.totalBytes,
      outputLines: 0,
      outputBytes: 0,
    };
    let body: string;
    if (this.headLimit > 0 && this.headClosed && this.cappedBytes > kept) {
      // Middle elision. Counted from the capped stream we actually kept, so the numbers are exact
      // (oh-my-pi approximates with totalBytes - columnDroppedBytes, which ignores the ellipses).
      const headText = head.toString('utf8');
      const tailText = tail.toString('utf8');
      const headLines = lineCount(head);
      const tailLines = lineCount(tail);
      const elidedBytes = this.cappedBytes - kept;
      const elidedLines = Math.max(0, totalLines - headLines - tailLines);
      const marker = elisionMarker(elidedLines, elidedBytes);
      const before = headText.length > 0 && !headText.endsWith('\n') ? '\n' : '';
      const after = tailText.startsWith('\n') ? '' : '\n';
      body = `${headText}${before}${marker}${after}${tailText}`;
      summary.truncated = true;
      summary.outputLines = headLines + 1 + tailLines;
      summary.elidedBytes = elidedBytes;
      summary.elidedLines = elidedLines;
    } else {
      body = head.toString('utf8') + tail.toString('utf8');
      summary.truncated = this.cappedBytes > kept;
      // head + tail end where the stream ends, so they end with its final newline (or not).
      summary.outputLines = totalLines === 0 ? 0 : countNewlines(head) + countNewlines(tail) + (this.endsWithNewline ? 0 : 1);
    }
    summary.output = prefix + body;
    summary.outputBytes = Buffer.byteLength(body, 'utf8');
    if (this.columnTruncatedLines > 0) {
      summary.columnDroppedBytes = this.columnDroppedBytes;
      summary.columnTruncatedLines = this.columnTruncatedLines;
      summary.columnMax = this.maxColumns;
    }
    if (this.artifactOpened && this.artifactId !== undefined) summary.artifactId = this.artifactId;
    return summary;
  }
}
