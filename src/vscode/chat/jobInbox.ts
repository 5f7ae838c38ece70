// Background jobs (`async: true`, auto-background) finish after the tool call that started them. A
// chat agent has no channel for a late result, so its finished jobs wait here and are handed to the
// model with its next agent_bash call: "result will be delivered automatically" stays true. Only jobs
// the caller started (`track`) are delivered to it.
import type { JobInfo, JobManager } from '../../core/contracts';

/** Finished jobs waiting at most (oldest dropped first, and said so). */
export const INBOX_MAX = 20;

export function jobDeliveryText(job: JobInfo): string {
  const body = job.result?.content.map((c) => c.text).join('\n') ?? job.tail;
  return `[Background job ${job.id} ${job.state}: ${job.label}]\n${body}`;
}

export class JobInbox {
  private readonly waiting: JobInfo[] = [];
  private dropped = 0;
  private readonly tracked = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(jobs: JobManager) {
    this.unsubscribe = jobs.onDidComplete((job) => {
      if (!this.tracked.delete(job.id)) return;
      this.waiting.push(job);
      if (this.waiting.length > INBOX_MAX) {
        this.waiting.shift();
        this.dropped++;
      }
    });
  }

  /** Deliver this job's result here when it ends. */
  track(jobId: string): void {
    this.tracked.add(jobId);
  }

  /** Texts of the jobs finished since the last call, oldest first; empties the inbox. */
  drain(): string[] {
    const texts = this.waiting.splice(0).map(jobDeliveryText);
    if (this.dropped > 0) {
      texts.unshift(`[${this.dropped} older background job result(s) were dropped; list them with Agent Bash: Show Jobs]`);
      this.dropped = 0;
    }
    return texts;
  }

  dispose(): void {
    this.unsubscribe();
  }
}
