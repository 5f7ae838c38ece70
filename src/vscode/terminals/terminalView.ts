// Draws a process's byte stream into a Pseudoterminal: writes coalesced every few milliseconds, `\n`
// turned into `\r\n`, and a bounded backlog so a fast producer cannot flood the renderer. Bytes are
// decoded only when drawn: of a 1 GB stream only the newest part of each backlog is ever decoded.
//
// Flood policy (issue 23): at most one write per FLUSH_MS, of at most MAX_PENDING_VIEW_BYTES of the
// stream (the newest; older bytes that did not fit are counted and replaced by one dim line
// `[… 12.3 MB not drawn here; the full output is kept]`). That caps what reaches the workbench
// renderer at 1 MiB/s, far more than anyone reads; the command's result (and its artifact) keeps
// everything. A command's header and status lines go with the next write (at most FLUSH_MS later), so
// a quick command's header, output and status reach the renderer as one write, after its result.
import type * as vscode from 'vscode';

/**
 * Backlog above this (bytes) is not drawn, and no single write is larger. Measured in-host
 * (bench/inhost.mjs): 256 KiB every 8 ms made the renderer's long tasks during a 50 MB stream 3× more
 * frequent and the stream itself 3× slower; 64 KiB every 16 ms still left 69–106 ms tasks.
 */
export const MAX_PENDING_VIEW_BYTES = 16 * 1024;
export const FLUSH_MS = 16;

/** The dim line that stands for bytes a flood did not let us draw. */
export function notDrawnLine(bytes: number): string {
  return `\x1b[2m[… ${formatBytes(bytes)} not drawn here; the full output is kept]\x1b[0m\n`;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** Where the view draws: a Pseudoterminal's write emitter. */
export type ViewEmitter = Pick<vscode.EventEmitter<string>, 'fire'>;

export class TerminalView {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private elidedBytes = 0;
  private decoder = new TextDecoder('utf-8');
  private opened = false;
  private disposed = false;
  private timer: NodeJS.Timeout | undefined;
  private lastByte: number | undefined;

  constructor(private readonly emitter: ViewEmitter) {}

  open(): void {
    this.opened = true;
    this.flushNow();
  }

  write(chunk: Buffer): void {
    this.append(chunk);
    this.schedule();
  }

  /**
   * A line of our own (a command's header or status) that starts on a fresh line; drawn at once, or
   * with `soon` within FLUSH_MS together with whatever follows it.
   */
  writeLine(line: string, soon = false): void {
    const last = this.pending.length ? this.pending[this.pending.length - 1].at(-1) : this.lastByte;
    const sep = last === undefined || last === 0x0a ? '' : '\n';
    this.append(Buffer.from(`${sep}${line}\n`));
    if (soon) this.schedule();
    else this.flushNow();
  }

  /** Draws what is pending now (once the terminal is open). */
  flushNow(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.opened) this.flush();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** Keeps the newest MAX_PENDING_VIEW_BYTES; what falls out is counted, never drawn. */
  private append(chunk: Buffer): void {
    if (chunk.length === 0 || this.disposed) return;
    let b = chunk;
    if (b.length > MAX_PENDING_VIEW_BYTES) {
      this.elidedBytes += b.length - MAX_PENDING_VIEW_BYTES;
      b = b.subarray(b.length - MAX_PENDING_VIEW_BYTES);
    }
    this.pending.push(b);
    this.pendingBytes += b.length;
    while (this.pendingBytes > MAX_PENDING_VIEW_BYTES) {
      const over = this.pendingBytes - MAX_PENDING_VIEW_BYTES;
      const first = this.pending[0];
      if (first.length <= over) {
        this.pending.shift();
        this.pendingBytes -= first.length;
        this.elidedBytes += first.length;
      } else {
        this.pending[0] = first.subarray(over);
        this.pendingBytes -= over;
        this.elidedBytes += over;
      }
    }
  }

  private schedule(): void {
    if (!this.opened || this.timer || this.disposed || (!this.pendingBytes && !this.elidedBytes)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, FLUSH_MS);
  }

  private flush(): void {
    if (this.disposed || (!this.pendingBytes && !this.elidedBytes)) return;
    let head = '';
    let bytes = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    if (this.elidedBytes) {
      // The dropped bytes may have ended mid code point: restart decoding on a boundary.
      this.decoder = new TextDecoder('utf-8');
      let start = 0;
      while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
      bytes = bytes.subarray(start);
      head = notDrawnLine(this.elidedBytes + start);
      this.elidedBytes = 0;
      // The dim line starts on a fresh line.
      if (this.lastByte !== undefined && this.lastByte !== 0x0a) head = `\n${head}`;
    }
    this.pending = [];
    this.pendingBytes = 0;
    if (bytes.length) this.lastByte = bytes[bytes.length - 1];
    const text = head + this.decoder.decode(bytes, { stream: true });
    if (text) this.emitter.fire(text.replace(/\r?\n/g, '\r\n'));
  }
}
