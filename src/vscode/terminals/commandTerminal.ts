// One client-bridge command as VS Code shows it: a BridgeProcess (src/exec) drawn as a region of its
// caller's terminal (CallerTerminal), with the ACP TerminalHandle contract on top. Its id, output
// tail and exit status are its own, whatever else the terminal shows. The process's own exit event is
// the truth for the exit status: shell integration and `Terminal.exitStatus` lose signals and early
// exits (docs/ARCHITECTURE.md, Process model).
import type { ReadOnlyLine } from '../../core/policy/checks/readerClass';
import type * as vscode from 'vscode';
import { STOPPED } from '../../core/humanMessages';
import { terminalStatusLine } from '../../core/terminalText';
import { policyCommandLine } from '../../core/policy/analysis/terminalCommandLine';
import { BridgeProcess, type CommandProcess } from '../../exec/bridgeProcess';
import { SessionCall } from '../../exec/sessionCall';
import type { SandboxRuntime } from '../../exec/sandbox/sandboxRuntime';
import { exitWords, type CallerTerminal, type Region, type RegionOwner } from './callerTerminal';
import { TERMINAL_ENV } from './processMarks';
import type {
  CreateTerminalParams,
  LocalExecutor,
  SessionLine,
  OutputSinkLike,
  TerminalExitStatus,
  TerminalHandle,
  TerminalOutput,
} from '../../core/contracts';

export interface CommandTerminalOptions {
  id: string;
  params: CreateTerminalParams;
  shell: { path: string; args: string[] };
  baseEnv: NodeJS.ProcessEnv;
  defaultCwd: string;
  /** The header names the directory only when it is not this one. */
  quietCwd: string;
  /** Where it is drawn; held by this command until its release. */
  host: CallerTerminal;
  /** The OS sandbox / PID namespace its process runs in; absent: runs it as it is. */
  sandbox?: SandboxRuntime;
  /** `off`: outside the OS sandbox (still contained). */
  sandboxMode?: 'off';
  /** The caller's words on what the command does, under the header line. */
  description?: string;
  /** Run the line in the caller's persistent shell (through `executor`) rather than a process of its own. */
  session?: SessionLine & { executor: LocalExecutor };
  /** An auto-approved read: run under the read-only fence (ExecRequest.readOnly), in a session or not. */
  readOnly?: ReadOnlyLine;
}

/** The exit in brackets, as the ACP panel's cards show it. */
export function exitLine(status: TerminalExitStatus): string {
  return `[${exitWords(status)}]`;
}

export class CommandTerminal implements TerminalHandle {
  readonly terminalId: string;
  readonly host: CallerTerminal;
  private readonly process: CommandProcess;
  private readonly region: Region;
  private readonly owner: RegionOwner;
  private released = false;
  /** Why it was stopped, for the status line (a signal alone does not say). */
  private stoppedBecause: string | undefined;

  /** Why it was stopped (STOPPED.ctrlC when the person pressed Ctrl+C), once something stopped it. */
  get stopReason(): string | undefined {
    return this.stoppedBecause;
  }

  /** How its process ran: `sandboxed` in the OS sandbox, else outside it. */
  get level(): string {
    return this.process.level;
  }

  constructor(opts: CommandTerminalOptions, private readonly onReleased: (term: CommandTerminal) => void) {
    this.terminalId = opts.id;
    this.host = opts.host;
    const { params } = opts;
    const cwd = params.cwd ?? opts.defaultCwd;
    this.owner = {
      interrupt: () => void this.kill(STOPPED.ctrlC),
      // The user closed the terminal: nothing it started may keep running.
      closed: () => void this.release(),
    };
    this.region = opts.host.begin(policyCommandLine(params), cwd === opts.quietCwd ? undefined : cwd, this.owner, opts.description);
    try {
      this.process = opts.session ? sessionCall(opts, opts.session, cwd, (chunk) => this.region.write(chunk)) : new BridgeProcess({
        params,
        shell: opts.shell,
        baseEnv: opts.baseEnv,
        defaultCwd: opts.defaultCwd,
        mark: { name: TERMINAL_ENV, value: opts.id },
        onBytes: (chunk) => this.region.write(chunk),
        ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
        ...(opts.sandboxMode ? { sandboxMode: opts.sandboxMode } : {}),
        ...(opts.readOnly ? { readOnly: opts.readOnly } : {}),
      });
    } catch (err) {
      // Spawn errors normally arrive as an event (exit 126/127); a synchronous throw must still free the terminal.
      this.region.end(`failed to start: ${err instanceof Error ? err.message : String(err)}`, false);
      opts.host.forget(this.owner);
      throw err;
    }
    void this.process.exited.then((status) => {
      const words = status.signal && this.stoppedBecause ? this.stoppedBecause : exitWords(status);
      const output = this.process.level === 'sandboxed' && status.exitCode !== 0 ? this.process.output().output : '';
      const level = opts.sandbox ? this.process.level : undefined;
      const fenced = (opts.readOnly ?? opts.session?.readOnly) !== undefined;
      this.region.end(terminalStatusLine(words, { level, exitCode: status.exitCode, output, fenced }), status.exitCode === 0);
    });
  }

  /** The VS Code terminal it is drawn in (shared with the caller's other commands). */
  get terminal(): vscode.Terminal {
    return this.host.terminal;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get running(): boolean {
    return this.process.running;
  }

  get exitedAt(): number | undefined {
    return this.process.exitedAt;
  }

  async currentOutput(): Promise<TerminalOutput> {
    this.assertNotReleased();
    return this.process.output();
  }

  waitForExit(): Promise<TerminalExitStatus> {
    this.assertNotReleased();
    return this.process.exited;
  }

  onOutput(listener: (chunk: string) => void): () => void {
    return this.process.onOutput(listener);
  }

  pipeTo(sink: OutputSinkLike): void {
    this.process.pipeTo(sink);
  }

  kill(why?: string): Promise<void> {
    this.stoppedBecause ??= why;
    return this.process.kill();
  }

  /**
   * The handle is gone (its id is unknown from now on) but its region stays on screen as a read-only
   * record, as ACP clients keep showing a released terminal.
   */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.host.forget(this.owner);
    await this.process.killAll();
    this.onReleased(this);
  }

  private assertNotReleased(): void {
    if (this.released) throw new Error(`Terminal ${this.terminalId} was released`);
  }
}

/** The command as a call in its caller's persistent shell; the sandbox decides its level as for a process. */
function sessionCall(opts: CommandTerminalOptions, session: SessionLine & { executor: LocalExecutor }, cwd: string, onBytes: (chunk: Buffer) => void): SessionCall {
  const { params } = opts;
  return new SessionCall({
    executor: session.executor,
    sessionKey: session.key,
    line: session.line,
    ...(session.unset ? { unset: session.unset } : {}),
    ...(session.readOnly ? { readOnly: session.readOnly } : {}),
    cwd,
    ...(params.env?.length ? { env: Object.fromEntries(params.env.map((v) => [v.name, v.value])) } : {}),
    mark: { name: TERMINAL_ENV, value: opts.id },
    // Throws SandboxUnavailableError (sandbox `on`, none here) before anything starts, as a process would.
    level: opts.sandbox ? opts.sandbox.levelFor(opts.sandboxMode) : 'plain',
    ...(opts.sandboxMode ? { sandboxMode: opts.sandboxMode } : {}),
    ...(params.outputByteLimit !== undefined ? { outputByteLimit: params.outputByteLimit } : {}),
    onBytes,
  });
}
