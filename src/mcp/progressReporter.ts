// Streams a running command's output to the client as `notifications/progress` (only when the
// request carried a progressToken). The pipeline reports the whole tail on every chunk; sending each
// one would flood the connection, so at most one notification goes out per interval, carrying the
// newest tail, and the last one is never dropped.

/** Each notification carries at most this much of the end of the output. */
export const PROGRESS_MESSAGE_CHARS = 4096;
export const PROGRESS_INTERVAL_MS = 200;
/**
 * With nothing new to say (a silent command, an approval dialog left open), a notification still goes
 * out this often: clients time a request out after 60 s unless progress arrives (the SDK's default).
 */
export const KEEP_ALIVE_MS = 10_000;

/** `canAsk`: the server can show an approval dialog (the editor's); over stdio nobody is asked. */
export function keepAliveMessage(seconds: number, canAsk = true): string {
  return canAsk ? `Still running after ${seconds} s (waiting for output or for the user's approval).` : `Still running after ${seconds} s (no new output).`;
}

export interface ProgressSend {
  (progress: number, message: string): Promise<void>;
}

export class ProgressReporter {
  private count = 0;
  private lastSent = 0;
  private pending: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly started = Date.now();
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: ProgressSend,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
    private readonly keepAliveMs = KEEP_ALIVE_MS,
    private readonly keepAliveText: (seconds: number) => string = keepAliveMessage,
  ) {
    this.armKeepAlive(keepAliveMs);
  }

  update(tail: string): void {
    // The bridge's first update only names the terminal: nothing to show yet.
    if (this.stopped || tail === '') return;
    this.pending = tail.length > PROGRESS_MESSAGE_CHARS ? tail.slice(-PROGRESS_MESSAGE_CHARS) : tail;
    const wait = this.lastSent + this.intervalMs - Date.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait);
  }

  /** No more notifications after the result (a late one would confuse the client). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.keepAlive);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * The keep-alive is due `keepAliveMs` after the last notification: a timer for exactly the quiet
   * time left (a fixed interval could check a moment before it was due and then wait a whole period).
   */
  private armKeepAlive(delayMs: number): void {
    this.keepAlive = setTimeout(() => this.beat(), Math.max(1, delayMs));
    this.keepAlive.unref();
  }

  private beat(): void {
    if (this.stopped) return;
    const quietMs = Date.now() - Math.max(this.lastSent, this.started);
    if (quietMs < this.keepAliveMs) {
      this.armKeepAlive(this.keepAliveMs - quietMs);
      return;
    }
    this.pending ??= this.keepAliveText(Math.round((Date.now() - this.started) / 1000));
    this.flush();
    this.armKeepAlive(this.keepAliveMs);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.stopped || this.pending === undefined) return;
    const message = this.pending;
    this.pending = undefined;
    this.lastSent = Date.now();
    this.count += 1;
    // Progress is best effort: a closed stream must not fail the command.
    this.send(this.count, message).catch(() => undefined);
  }
}
