// The process half of a client-bridge terminal: one command spawned in its own process group, its
// stdout+stderr merged into a bounded tail (ACP `outputByteLimit`), pushed to listeners and sinks,
// its exit status from the process's own exit event, kill, and the sweep that ends whatever escaped
// the group. No VS Code here: whoever draws the output subscribes through `onBytes`.
import type { ReadOnlyLine } from '../core/policy/checks/readerClass';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { CreateTerminalParams, OutputSinkLike, TerminalExitStatus, TerminalOutput } from '../core/contracts';
import { commandEnv } from '../core/nonInteractiveEnv';
import { CommandOutput } from './commandOutput';
import { markSweeper } from './markSweeper';
import { killProcessTree, signalGroup, spawnInGroup } from './processTree';
import { drainStreams } from './runControl';
import { wrapSpawn, type SandboxLevel, type SandboxRuntime } from './sandbox/sandboxRuntime';
import { refusalLine } from '../core/sandboxRefusals';

const KILL_GRACE_MS = 1000;
/**
 * ACP leaves `outputByteLimit` optional; without one the client picks. Memory must stay bounded
 * whatever a command prints, so a caller that sets none keeps the last 4 MiB (`truncated` says so).
 */
export const DEFAULT_OUTPUT_BYTE_LIMIT = 4 * 1024 * 1024;

/** ACP `command` is an executable; a raw line with no args (claude-code-acp's shape) needs a shell. */
export function needsShell(params: CreateTerminalParams): boolean {
  return (!params.args || params.args.length === 0) && /[\s;&|<>()$`'"\\*?~{}[\]#=!]/.test(params.command);
}

export interface BridgeProcessOptions {
  params: CreateTerminalParams;
  shell: { path: string; args: string[] };
  baseEnv: NodeJS.ProcessEnv;
  defaultCwd: string;
  /** An environment variable set on the process; every descendant inherits it, so `sweep` finds them. */
  mark: { name: string; value: string };
  /** Every byte of output as it arrives (the terminal view). */
  onBytes?: (chunk: Buffer) => void;
  /** Wraps the process in the OS sandbox / PID namespace; absent: runs it as it is. */
  sandbox?: SandboxRuntime;
  /** `off`: outside the OS sandbox (still contained). */
  sandboxMode?: 'off';
  /** An auto-approved read: run under the read-only fence (sandboxRuntime.ts WrapOptions.readOnly). */
  readOnly?: ReadOnlyLine;
}

/** What a client-bridge command runs as: a process of its own (BridgeProcess) or a call in a session's shell (SessionCall). */
export interface CommandProcess {
  readonly pid: number | undefined;
  /** How it runs: in the OS sandbox, only contained (a PID namespace), or plain. */
  readonly level: SandboxLevel;
  /** Resolves after the exit and the drain of the output; never rejects. */
  readonly exited: Promise<TerminalExitStatus>;
  readonly exitStatus: TerminalExitStatus | null;
  readonly exitedAt: number | undefined;
  readonly running: boolean;
  output(): TerminalOutput;
  onOutput(listener: (chunk: string) => void): () => void;
  pipeTo(sink: OutputSinkLike): void;
  /** Stops the command; resolves once it has ended. */
  kill(): Promise<void>;
  /** Stops the command and whatever it left running. */
  killAll(): Promise<void>;
}

export class BridgeProcess implements CommandProcess {
  readonly pid: number | undefined;
  /** How it runs: in the OS sandbox, only contained (a PID namespace), or plain. */
  readonly level: SandboxLevel;
  /** Resolves after the exit and the drain of the pipes; never rejects (a spawn failure is 126/127). */
  readonly exited: Promise<TerminalExitStatus>;
  exitStatus: TerminalExitStatus | null = null;
  exitedAt: number | undefined;
  private readonly child: ChildProcess;
  private readonly out: CommandOutput;
  private killing: Promise<void> | undefined;

  constructor(private readonly opts: BridgeProcessOptions) {
    const { params } = opts;
    this.out = new CommandOutput(params.outputByteLimit ?? DEFAULT_OUTPUT_BYTE_LIMIT, opts.onBytes);
    const viaShell = needsShell(params);
    const file = viaShell ? opts.shell.path : params.command;
    const args = viaShell ? [...opts.shell.args, params.command] : (params.args ?? []);
    // The neutralising environment of every route (git runs no fsmonitor, pagers are cat), then the
    // caller's variables, then the mark that finds the process again.
    const env = commandEnv(opts.baseEnv, Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value])));
    env[opts.mark.name] = opts.mark.value;

    // Throws SandboxUnavailableError (sandbox `on`, none here) before anything starts.
    const wrapped = wrapSpawn(opts.sandbox, [file, ...args], {
      env,
      ...(params.env?.length ? { given: Object.fromEntries(params.env.map((v) => [v.name, v.value])) } : {}),
      ...(opts.sandboxMode ? { sandbox: opts.sandboxMode } : {}),
      ...(opts.readOnly ? { readOnly: opts.readOnly } : {}),
      onRefused: (r) => this.onData(Buffer.from(refusalLine(r))),
    });
    this.level = wrapped.level;
    this.child = spawnInGroup(wrapped.file, wrapped.args, { cwd: params.cwd ?? opts.defaultCwd, env: wrapped.env, stdio: ['ignore', 'pipe', 'pipe', ...(wrapped.passFds ?? [])] });
    this.child.once('exit', () => wrapped.dispose());
    this.child.once('error', () => wrapped.dispose());
    this.pid = this.child.pid;
    const streams = [this.child.stdout, this.child.stderr].filter((s): s is Readable => s !== null);
    for (const s of streams) s.on('data', (b: Buffer) => this.onData(b));
    this.exited = new Promise<TerminalExitStatus>((resolve) => {
      this.child.once('error', (err: NodeJS.ErrnoException) => {
        this.onData(Buffer.from(`${spawnErrorText(file, err)}\n`));
        this.finish({ exitCode: err.code === 'ENOENT' ? 127 : 126, signal: null }, resolve);
      });
      this.child.once('exit', (code, signal) => {
        // Background children may hold the pipes open: wait for them a little, then stop listening.
        void drainStreams(streams).then(() => {
          for (const s of streams) s.destroy();
          this.finish({ exitCode: signal ? null : code, signal: signal ?? null }, resolve);
        });
      });
    });
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

  /** SIGTERM to the group, SIGKILL after a grace; resolves once the leader is gone. */
  kill(): Promise<void> {
    if (this.exitStatus || this.child.pid === undefined) return Promise.resolve();
    this.killing ??= killProcessTree(this.child, { graceMs: KILL_GRACE_MS });
    return this.killing;
  }

  /**
   * Nothing outlives a release: kill the command if it still runs, then background children it left
   * in its group, then anything that left the group (setsid, double fork) but still carries the mark.
   */
  async killAll(): Promise<void> {
    this.out.forgetListeners();
    if (this.child.pid === undefined) return;
    if (this.exitStatus === null) await this.kill();
    signalGroup(this.child.pid, 'SIGKILL');
    // The /proc sweep (a few ms on a busy machine) is shared with the commands released beside it.
    markSweeper.sweep(this.opts.mark);
  }

  private onData(chunk: Buffer): void {
    this.out.push(chunk);
  }

  private finish(status: TerminalExitStatus, resolve: (s: TerminalExitStatus) => void): void {
    if (this.exitStatus) return;
    this.out.end();
    this.exitStatus = status;
    this.exitedAt = Date.now();
    resolve(status);
  }
}

function spawnErrorText(file: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return `${file}: command not found`;
  return `${file}: ${err.message}`;
}
