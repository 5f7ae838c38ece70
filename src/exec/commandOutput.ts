// The output of one client-bridge command as its handle serves it, whatever runs it (a process of its
// own or a call in a session's shell): every byte to the view and to the sinks, a bounded tail (ACP
// `outputByteLimit`), and the same bytes decoded as streaming UTF-8 for pushed-output listeners.
import type { OutputSinkLike, TerminalExitStatus, TerminalOutput } from '../core/contracts';
import { TailBuffer } from '../core/output/tailBuffer';

export class CommandOutput {
  private readonly tail: TailBuffer;
  private readonly listeners = new Set<(chunk: string) => void>();
  private readonly sinks: OutputSinkLike[] = [];
  /** Only for pushed-output listeners; the view and the tail keep bytes. */
  private readonly decoder = new TextDecoder('utf-8');

  constructor(byteLimit: number, private readonly onBytes?: (chunk: Buffer) => void) {
    this.tail = new TailBuffer(byteLimit);
  }

  /** `draw: false`: kept for the caller (tail, sinks, listeners) but not drawn in the terminal. */
  push(chunk: Buffer, draw = true): void {
    this.tail.push(chunk);
    for (const sink of this.sinks) sink.push(chunk);
    if (draw) this.onBytes?.(chunk);
    if (this.listeners.size === 0) return;
    const text = this.decoder.decode(chunk, { stream: true });
    if (text) for (const l of this.listeners) l(text);
  }

  /** The tail, as ACP `terminal/output` answers. */
  snapshot(exitStatus: TerminalExitStatus | null): TerminalOutput {
    return { output: this.tail.text(), truncated: this.tail.truncated, exitStatus };
  }

  onOutput(listener: (chunk: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  pipeTo(sink: OutputSinkLike): void {
    this.sinks.push(sink);
  }

  /** The listeners are gone (the handle was released). */
  forgetListeners(): void {
    this.listeners.clear();
  }

  /** The stream ended: what the decoder still holds goes to the listeners. */
  end(): void {
    const rest = this.decoder.decode();
    if (rest) for (const l of this.listeners) l(rest);
  }
}
