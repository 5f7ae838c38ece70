// Draws a process's byte stream into a Pseudoterminal: writes coalesced every few milliseconds, `\n`
// turned into `\r\n`, and a bounded backlog so a fast producer cannot flood the renderer. Bytes are
// decoded only when drawn: of a 1 GB stream only the newest part of each backlog is ever decoded.
import type * as vscode from 'vscode';

/**
 * Backlog above this (bytes) is not drawn; whatever holds the full output keeps it. With FLUSH_MS this
 * lets at most 4 MiB/s reach the workbench renderer (far more than anyone reads): measured in-host
 * (bench/inhost.mjs), 256 KiB every 8 ms made the renderer's long tasks during a 50 MB stream 3× more
 * frequent and the stream itself 3× slower.
 */
export const MAX_PENDING_VIEW_BYTES = 64 * 1024;
const FLUSH_MS = 16;

export class TerminalView {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private elidedBytes = 0;
  private decoder = new TextDecoder('utf-8');
  private opened = false;
  private disposed = false;
  private timer: NodeJS.Timeout | undefined;
  private lastByte: number | undefined;

  constructor(private readonly emitter: vscode.EventEmitter<string>) {}

  open(): void {
    this.opened = true;
    this.schedule();
  }

  write(chunk: Buffer): void {
    if (chunk.length === 0 || this.disposed) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    while (this.pendingBytes > MAX_PENDING_VIEW_BYTES && this.pending.length > 1) {
      const dropped = this.pending.shift() as Buffer;
      this.pendingBytes -= dropped.length;
      this.elidedBytes += dropped.length;
    }
    this.schedule();
  }

  /** A line of our own (a command's header or status) that starts on a fresh line. */
  writeLine(line: string): void {
    const last = this.pending.length ? this.pending[this.pending.length - 1].at(-1) : this.lastByte;
    const sep = last === undefined || last === 0x0a ? '' : '\n';
    this.write(Buffer.from(`${sep}${line}\n`));
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.pending = [];
  }

  private schedule(): void {
    if (!this.opened || this.timer || this.disposed || (!this.pendingBytes && !this.elidedBytes)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, FLUSH_MS);
  }

  private flush(): void {
    if (this.disposed) return;
    let head = '';
    let bytes = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    if (this.elidedBytes) {
      head = `\x1b[2m[… ${this.elidedBytes} bytes not drawn; the full output is kept]\x1b[0m\n`;
      this.elidedBytes = 0;
      // The dropped bytes may have ended mid code point: restart decoding on a boundary.
      this.decoder = new TextDecoder('utf-8');
      let start = 0;
      while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
      bytes = bytes.subarray(start);
    }
    this.pending = [];
    this.pendingBytes = 0;
    if (bytes.length) this.lastByte = bytes[bytes.length - 1];
    const text = head + this.decoder.decode(bytes, { stream: true });
    if (text) this.emitter.fire(text.replace(/\r?\n/g, '\r\n'));
  }
}
