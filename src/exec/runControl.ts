// What every local run shares: its deadline, cancellation through an AbortSignal, the notice
// texts the sink prepends, and the post-exit drain that stops a background child holding the output
// pipe from holding the call open (docs/ARCHITECTURE.md, Process model).
import type { Readable } from 'node:stream';
import type { ExecResult, OutputSinkLike } from '../core/contracts';

export const COMMAND_CANCELLED = 'Command cancelled';
export const timedOutNotice = (seconds: number): string => `Command timed out after ${seconds} seconds`;

/** After the shell exits: stop once the pipes were quiet this long… */
export const DRAIN_IDLE_MS = 250;
/** …or this long after the exit at the latest. */
export const DRAIN_MAX_MS = 2000;

/** A positive timeout below one second still gets one second; 0 = none. */
export function effectiveDeadlineMs(timeoutMs: number): number {
  return timeoutMs > 0 ? Math.max(1000, timeoutMs) : 0;
}

export type StopReason = 'timeout' | 'abort';

/**
 * Arms the deadline timer and the abort listener; `onStop` fires at most once. `dispose()` removes
 * both, so a finished run leaves no timer keeping the event loop alive and no listener on a
 * long-lived signal.
 */
export class RunGuard {
  private timer: NodeJS.Timeout | undefined;
  private readonly abortListener: (() => void) | undefined;
  private stopped: StopReason | undefined;

  constructor(
    private readonly deadlineMs: number,
    private readonly signal: AbortSignal | undefined,
    onStop: (reason: StopReason) => void,
  ) {
    const fire = (reason: StopReason): void => {
      if (this.stopped) return;
      this.stopped = reason;
      this.dispose();
      onStop(reason);
    };
    if (deadlineMs > 0) this.timer = setTimeout(() => fire('timeout'), deadlineMs);
    if (signal) {
      this.abortListener = () => fire('abort');
      signal.addEventListener('abort', this.abortListener, { once: true });
    }
  }

  get reason(): StopReason | undefined {
    return this.stopped;
  }

  /** The sink notice for how the run was stopped, or undefined when it was not. */
  notice(): string | undefined {
    if (this.stopped === 'timeout') return timedOutNotice(Math.round(this.deadlineMs / 1000));
    if (this.stopped === 'abort') return COMMAND_CANCELLED;
    return undefined;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.signal && this.abortListener) this.signal.removeEventListener('abort', this.abortListener);
  }
}

/** The result of a call whose signal was aborted before it began: no shell is ever created. */
export async function cancelledBeforeStart(sink: OutputSinkLike): Promise<ExecResult> {
  const summary = await sink.dump(COMMAND_CANCELLED);
  return { exitCode: undefined, timedOut: false, cancelled: true, summary };
}

/**
 * Resolves when every stream has ended, or when none produced data for `idleMs`, or `maxMs` after
 * the call, whichever comes first. Data keeps flowing to the streams' own listeners meanwhile.
 */
export function drainStreams(streams: readonly Readable[], idleMs = DRAIN_IDLE_MS, maxMs = DRAIN_MAX_MS): Promise<void> {
  const open = streams.filter((s) => !s.readableEnded && !s.destroyed);
  if (open.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    let remaining = open.length;
    let idle: NodeJS.Timeout | undefined;
    const cleanups: Array<() => void> = [];
    const finish = (): void => {
      if (idle) clearTimeout(idle);
      clearTimeout(max);
      for (const cleanup of cleanups) cleanup();
      resolve();
    };
    // Timers run before the poll phase of the event loop: after a stall longer than `idleMs` (a
    // loaded machine, a busy extension host) the timer fires while bytes already written still wait
    // in the pipe. So a timer only ends the drain from the check phase, after the poll phase has
    // read what was there; bytes read meanwhile keep it going.
    let quiet = false;
    const settleThen = (end: () => void) => (): void => {
      quiet = true;
      setImmediate(() => {
        if (quiet) end();
      });
    };
    const rearm = (): void => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(settleThen(finish), idleMs);
    };
    const max = setTimeout(() => setImmediate(finish), maxMs);
    for (const stream of open) {
      const onData = (): void => {
        quiet = false;
        rearm();
      };
      let ended = false;
      const onEnd = (): void => {
        if (ended) return;
        ended = true;
        remaining -= 1;
        if (remaining === 0) finish();
      };
      stream.on('data', onData);
      stream.once('end', onEnd);
      stream.once('close', onEnd);
      cleanups.push(() => {
        stream.off('data', onData);
        stream.off('end', onEnd);
        stream.off('close', onEnd);
      });
    }
    rearm();
  });
}
