// What a released command left running is found by its mark (processTree.ts `processesWithAnyEnv`)
// and killed. That pass reads every process's environment in /proc: ~3 ms of the extension host's
// thread for each command on a desktop with a browser open, paid just when the next command starts
// when an agent runs commands back to back. So releases are swept together: one pass kills what every
// command released in the last IDLE_MS left behind, at most MAX_MS after the first of them; `flush`
// sweeps at once (dispose, shutdown). The timers hold the process open: a CLI that is done still
// sweeps before it exits.
import { killByMarks, type EnvMark } from './processTree';

const IDLE_MS = 40;
const MAX_MS = 400;

export class MarkSweeper {
  private readonly pending = new Map<string, EnvMark>();
  private idleTimer: NodeJS.Timeout | undefined;
  private maxTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs = IDLE_MS,
    private readonly maxMs = MAX_MS,
    private readonly kill: (marks: readonly EnvMark[]) => number[] = killByMarks,
  ) {}

  /** Kills what carries `mark` with the next sweep (within `maxMs`). */
  sweep(mark: EnvMark): void {
    this.pending.set(`${mark.name}=${mark.value}`, { name: mark.name, value: mark.value });
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.flush(), this.idleMs);
    this.maxTimer ??= setTimeout(() => this.flush(), this.maxMs);
  }

  /** Drops what is pending (a pass that covers it follows: the session's own mark). */
  cancel(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.maxTimer);
    this.idleTimer = undefined;
    this.maxTimer = undefined;
    this.pending.clear();
  }

  /** Sweeps now: the pids killed. */
  flush(): number[] {
    const marks = [...this.pending.values()];
    this.cancel();
    return marks.length === 0 ? [] : this.kill(marks);
  }
}

/** The one sweeper of this process (commands of every terminal share its passes). */
export const markSweeper = new MarkSweeper();
