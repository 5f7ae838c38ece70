// Background bash jobs (docs/ARCHITECTURE.md, Background jobs): `async: true` runs and auto-backgrounded
// ones. The manager owns the job records, their cancellation, a bounded tail of their output for
// progress, and the delivery of each final result through an event, exactly once.
import type { JobContext, JobInfo, JobManager, JobState, JobWaitOutcome, ToolResult } from '../core/contracts';

export type { JobWaitOutcome } from '../core/contracts';
import { jobLabel, jobsAtCapacityMessage } from '../core/jobLimits';
import { utf8SafeTail } from '../core/output/tailBuffer';

export const DEFAULT_MAX_JOBS = 100;
/** Progress shows the latest 50 KiB of output. */
export const JOB_TAIL_BYTES = 50 * 1024;
/** Finished jobs kept for `list()`/`get()`; older ones are forgotten so a long session stays bounded. */
export const FINISHED_JOBS_KEPT = 200;
/** `dispose()` waits this long for cancelled runners to settle. */
const DISPOSE_WAIT_MS = 5000;

export { autoBackgroundWaitMs } from '../core/autoBackground';

export interface RegisterOptions {
  /** Hold the completion event until `resumeDelivery(id)` (an auto-background candidate). */
  suppressDelivery?: boolean;
}


interface JobRecord {
  info: JobInfo;
  controller: AbortController;
  cancelRequested: boolean;
  suppressed: boolean;
  delivered: boolean;
  settled: Promise<void>;
  doneListeners: Array<() => void>;
}

function snapshot(info: JobInfo): JobInfo {
  return { ...info };
}

/** A job that ran to its end with an error result (non-zero exit, timeout) is failed, not completed. */
function stateOf(result: ToolResult): JobState {
  if (result.isError || result.details.timedOut || (result.details.exitCode ?? 0) !== 0) return 'failed';
  return 'completed';
}

export class BashJobManager implements JobManager {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly completeListeners = new Set<(job: JobInfo) => void>();
  private readonly changeListeners = new Set<(job: JobInfo) => void>();
  private nextId = 1;
  private disposed = false;

  /** `maxJobs` may be a getter so a settings change applies without a new manager. */
  constructor(private readonly maxJobs: number | (() => number) = DEFAULT_MAX_JOBS) {}

  private get cap(): number {
    const value = typeof this.maxJobs === 'function' ? this.maxJobs() : this.maxJobs;
    return Number.isFinite(value) && value > 0 ? Math.floor(value) : DEFAULT_MAX_JOBS;
  }

  get runningCount(): number {
    let n = 0;
    for (const job of this.jobs.values()) if (job.info.state === 'running') n += 1;
    return n;
  }

  atCapacity(): boolean {
    return this.runningCount >= this.cap;
  }

  register(label: string, runner: (ctx: JobContext) => Promise<ToolResult>, options: RegisterOptions = {}): JobInfo {
    if (this.disposed) throw new Error('BashJobManager is disposed');
    if (this.atCapacity()) throw new Error(jobsAtCapacityMessage(this.cap));
    const id = `job-${this.nextId++}`;
    const controller = new AbortController();
    const record: JobRecord = {
      info: { id, label: jobLabel(label), state: 'running', startedAt: Date.now(), tail: '' },
      controller,
      cancelRequested: false,
      suppressed: options.suppressDelivery === true,
      delivered: false,
      settled: Promise.resolve(),
      doneListeners: [],
    };
    this.jobs.set(id, record);
    this.prune();

    const ctx: JobContext = {
      jobId: id,
      signal: controller.signal,
      onProgress: (tail: string) => {
        if (record.info.state !== 'running') return;
        record.info.tail = utf8SafeTail(tail, JOB_TAIL_BYTES);
        this.emitChange(record);
      },
    };
    // The runner starts on a later tick so the caller has the job's id before any event about it.
    record.settled = Promise.resolve()
      .then(() => runner(ctx))
      .then(
        (result) => this.finish(record, result, record.cancelRequested ? 'cancelled' : stateOf(result)),
        (err: unknown) => {
          const text = err instanceof Error ? err.message : String(err);
          const result: ToolResult = { content: [{ type: 'text', text }], details: {}, isError: true };
          this.finish(record, result, record.cancelRequested ? 'cancelled' : 'failed');
        },
      );
    this.emitChange(record);
    return snapshot(record.info);
  }

  get(id: string): JobInfo | undefined {
    const record = this.jobs.get(id);
    return record ? snapshot(record.info) : undefined;
  }

  list(): JobInfo[] {
    return [...this.jobs.values()].map((r) => snapshot(r.info));
  }

  /** Aborts the job's signal; the job ends `cancelled` once its runner has settled. `by`: who killed it. */
  cancel(id: string, by?: string): boolean {
    const record = this.jobs.get(id);
    if (!record || record.info.state !== 'running') return false;
    record.cancelRequested = true;
    if (by !== undefined) record.info.cancelledBy = by;
    record.controller.abort();
    return true;
  }

  /** Lets a suppressed job's completion be delivered (now, when it already finished). */
  resumeDelivery(id: string): void {
    const record = this.jobs.get(id);
    if (!record || !record.suppressed) return;
    record.suppressed = false;
    if (record.info.state !== 'running') this.deliver(record);
  }

  /** Marks a suppressed job's result as handed over inline: it is never delivered through the event. */
  consumeResult(id: string): ToolResult | undefined {
    const record = this.jobs.get(id);
    if (!record || record.info.state === 'running') return undefined;
    record.delivered = true;
    return record.info.result;
  }

  /**
   * Races the job's end against `waitMs` and `signal` (the auto-background wait). The timer is
   * always cleared, so a fast command leaves nothing keeping the process alive (oh-my-pi #7235).
   */
  waitFor(id: string, waitMs: number, signal?: AbortSignal): Promise<JobWaitOutcome> {
    const record = this.jobs.get(id);
    if (!record || record.info.state !== 'running') return Promise.resolve('done');
    if (signal?.aborted) return Promise.resolve('aborted');
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => settle('aborted');
      const onDone = (): void => settle('done');
      const settle = (outcome: JobWaitOutcome): void => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = record.doneListeners.indexOf(onDone);
        if (at >= 0) record.doneListeners.splice(at, 1);
        resolve(outcome);
      };
      record.doneListeners.push(onDone);
      signal?.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => settle('timer'), Math.max(0, waitMs));
    });
  }

  onDidComplete(listener: (job: JobInfo) => void): () => void {
    this.completeListeners.add(listener);
    return () => this.completeListeners.delete(listener);
  }

  onDidChange(listener: (job: JobInfo) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Cancels every running job and waits (bounded) for their runners to settle. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const pending: Array<Promise<void>> = [];
    for (const record of this.jobs.values()) {
      if (record.info.state !== 'running') continue;
      this.cancel(record.info.id);
      pending.push(record.settled);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(pending),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, DISPOSE_WAIT_MS);
      }),
    ]);
    if (timer) clearTimeout(timer);
    this.completeListeners.clear();
    this.changeListeners.clear();
  }

  private finish(record: JobRecord, result: ToolResult, state: JobState): void {
    const asyncState = state === 'completed' ? 'completed' : 'failed';
    record.info.state = state;
    record.info.endedAt = Date.now();
    record.info.result = {
      ...result,
      details: { ...result.details, async: { state: asyncState, jobId: record.info.id, type: 'bash' } },
    };
    for (const listener of record.doneListeners.splice(0)) listener();
    this.emitChange(record);
    if (!record.suppressed) this.deliver(record);
  }

  private deliver(record: JobRecord): void {
    if (record.delivered) return;
    record.delivered = true;
    const info = snapshot(record.info);
    for (const listener of [...this.completeListeners]) listener(info);
  }

  private emitChange(record: JobRecord): void {
    const info = snapshot(record.info);
    for (const listener of [...this.changeListeners]) listener(info);
  }

  private prune(): void {
    const finished = [...this.jobs.values()].filter((r) => r.info.state !== 'running');
    for (const record of finished.slice(0, Math.max(0, finished.length - FINISHED_JOBS_KEPT))) {
      this.jobs.delete(record.info.id);
    }
  }
}
