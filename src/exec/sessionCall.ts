// The process half of a client-bridge command that runs in its caller's persistent shell (issue 23):
// the same face as a BridgeProcess (output tail, pushed chunks, sinks, exit status, kill, release
// sweep), but the line goes to a LocalExecutor session instead of a process of its own. The shell
// is already up inside the sandbox and the PID namespace, so a command costs no fork of the editor's
// process, no sandbox set-up and no shell start. What carries between calls is the session's rule
// (sessionReset.ts): functions, aliases, traps, options and the sensitive variables never do.
import type { ReadOnlyLine } from '../core/policy/checks/readerClass';
import type { LocalExecutor, OutputSinkLike, OutputSummary, TerminalExitStatus, TerminalOutput } from '../core/contracts';
import { CommandOutput } from './commandOutput';
import { DEFAULT_OUTPUT_BYTE_LIMIT, type CommandProcess } from './bridgeProcess';
import { markSweeper } from './markSweeper';
import { COMMAND_CANCELLED } from './runControl';
import type { SandboxLevel } from './sandbox/sandboxRuntime';

export interface SessionCallOptions {
  executor: LocalExecutor;
  /** The persistent-shell session (one per caller session). */
  sessionKey: string;
  /** The command line as the shell reads it. */
  line: string;
  /** Inherited variables the environment stage unsets first. */
  unset?: string[];
  cwd: string;
  /** The caller's variables, for this call only. */
  env?: Record<string, string>;
  /** Exported for this call only: every process it starts inherits it, so the release finds them. */
  mark: { name: string; value: string };
  /** How it runs (the sandbox runtime's answer for this call). */
  level: SandboxLevel;
  sandboxMode?: 'off';
  /** An auto-approved read: the session runs it under the read-only fence. */
  readOnly?: ReadOnlyLine;
  outputByteLimit?: number;
  onBytes?: (chunk: Buffer) => void;
}

export class SessionCall implements CommandProcess {
  /** The command has no process of its own: the session's shell runs it. */
  readonly pid: number | undefined = undefined;
  readonly level: SandboxLevel;
  readonly exited: Promise<TerminalExitStatus>;
  exitStatus: TerminalExitStatus | null = null;
  exitedAt: number | undefined;
  private readonly out: CommandOutput;
  private readonly abort = new AbortController();

  constructor(private readonly opts: SessionCallOptions) {
    this.level = opts.level;
    this.out = new CommandOutput(opts.outputByteLimit ?? DEFAULT_OUTPUT_BYTE_LIMIT, opts.onBytes);
    const sink: OutputSinkLike = {
      push: (chunk) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
      // A notice of the session (it was replaced) is part of what the command printed, last.
      dump: (notice) => {
        // "Command cancelled" is the agent's; the terminal's status line says how it stopped, in words.
        if (notice) this.onData(Buffer.from(`${notice}\n`), notice !== COMMAND_CANCELLED);
        return Promise.resolve(EMPTY_SUMMARY);
      },
      dispose: () => undefined,
    };
    this.exited = opts.executor
      .run({
        command: opts.line,
        cwd: opts.cwd,
        env: { ...opts.env, [opts.mark.name]: opts.mark.value },
        // The bridge route owns the deadline: it kills through `kill()`.
        timeoutMs: 0,
        signal: this.abort.signal,
        sessionKey: opts.sessionKey,
        ...(opts.unset?.length ? { unset: opts.unset } : {}),
        sink,
        ...(opts.sandboxMode ? { sandbox: opts.sandboxMode } : {}),
        ...(opts.readOnly ? { readOnly: opts.readOnly } : {}),
      })
      .then(
        (r): TerminalExitStatus => {
          if (r.cancelled) return { exitCode: null, signal: 'SIGTERM' };
          if (r.signal) return { exitCode: null, signal: r.signal };
          return { exitCode: r.exitCode ?? null, signal: null };
        },
        (err: unknown): TerminalExitStatus => {
          this.onData(Buffer.from(`${err instanceof Error ? err.message : String(err)}\n`));
          return { exitCode: 126, signal: null };
        },
      )
      .then((status) => this.finish(status));
  }

  get running(): boolean {
    return this.exitStatus === null;
  }

  output(): TerminalOutput {
    return this.out.snapshot(this.exitStatus);
  }

  onOutput(listener: (chunk: string) => void): () => void {
    return this.out.onOutput(listener);
  }

  pipeTo(sink: OutputSinkLike): void {
    this.out.pipeTo(sink);
  }

  /** Stops the command: its session's shell is killed (the next call gets a fresh one). */
  async kill(): Promise<void> {
    if (this.exitStatus) return;
    this.abort.abort();
    await this.exited;
  }

  /** Nothing the command started outlives its release; the session's shell stays for the next call. */
  async killAll(): Promise<void> {
    this.out.forgetListeners();
    if (this.exitStatus === null) await this.kill();
    // The /proc sweep (a few ms on a busy machine) is shared with the commands released beside it.
    markSweeper.sweep(this.opts.mark);
  }

  private onData(chunk: Buffer, draw = true): void {
    if (!this.exitStatus) this.out.push(chunk, draw);
  }

  private finish(status: TerminalExitStatus): TerminalExitStatus {
    this.out.end();
    this.exitStatus = status;
    this.exitedAt = Date.now();
    return status;
  }
}

const EMPTY_SUMMARY: OutputSummary = { output: '', truncated: false, totalLines: 0, totalBytes: 0, outputLines: 0, outputBytes: 0 };
