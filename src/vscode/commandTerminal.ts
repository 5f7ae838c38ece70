// One client-bridge command as VS Code shows it: a BridgeProcess (src/exec) mirrored into a terminal
// backed by a Pseudoterminal, with the ACP TerminalHandle contract on top. The process's own exit
// event is the truth for the exit status: shell integration and `Terminal.exitStatus` lose signals
// and early exits (spec acp-and-vscode-api.md §5).
import * as vscode from 'vscode';
import { policyCommandLine } from '../core/policy/terminalCommandLine';
import { BridgeProcess } from '../exec/bridgeProcess';
import { TERMINAL_ENV } from './processMarks';
import { TerminalView } from './terminalView';
import type {
  CreateTerminalParams,
  OutputSinkLike,
  TerminalExitStatus,
  TerminalHandle,
  TerminalOutput,
} from '../core/contracts';

export interface CommandTerminalOptions {
  id: string;
  params: CreateTerminalParams;
  shell: { path: string; args: string[] };
  baseEnv: NodeJS.ProcessEnv;
  defaultCwd: string;
  show: boolean;
}

export function exitLine(status: TerminalExitStatus): string {
  return status.signal ? `[killed by ${status.signal}]` : `[exit code ${status.exitCode}]`;
}

export class CommandTerminal implements TerminalHandle {
  readonly terminalId: string;
  readonly terminal: vscode.Terminal;
  private readonly process: BridgeProcess;
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly view: TerminalView;
  private released = false;
  private viewDisposed = false;

  constructor(opts: CommandTerminalOptions, private readonly onReleased: (id: string) => void) {
    this.terminalId = opts.id;
    const { params } = opts;
    this.view = new TerminalView(this.writeEmitter);
    // What runs, for whoever watches (the view only: output, tail and artifact stay the command's own).
    this.view.writeStatus(`$ ${policyCommandLine(params)}`);
    const pty: vscode.Pseudoterminal = {
      onDidWrite: this.writeEmitter.event,
      open: () => this.view.open(),
      // The user closed the terminal: nothing it started may keep running.
      close: () => {
        void this.release();
      },
      handleInput: (data) => {
        if (data === '\x03' && this.process.running) void this.kill();
      },
    };
    this.terminal = vscode.window.createTerminal({
      name: terminalName(params),
      pty,
      iconPath: new vscode.ThemeIcon('terminal-bash'),
    });
    if (opts.show) this.terminal.show(true);
    this.process = new BridgeProcess({
      params,
      shell: opts.shell,
      baseEnv: opts.baseEnv,
      defaultCwd: opts.defaultCwd,
      mark: { name: TERMINAL_ENV, value: opts.id },
      onBytes: (chunk) => this.view.write(chunk),
    });
    void this.process.exited.then((status) => this.view.writeStatus(exitLine(status)));
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

  kill(): Promise<void> {
    return this.process.kill();
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.process.killAll();
    // The handle is gone (its id is unknown from now on) but the VS Code terminal stays on screen as a
    // read-only record of the run, as ACP clients keep showing a released terminal; the bridge closes
    // it when too many are kept (`disposeView`).
    this.onReleased(this.terminalId);
  }

  /** Closes the terminal on screen and frees what drew it. Idempotent. */
  disposeView(): void {
    if (this.viewDisposed) return;
    this.viewDisposed = true;
    this.view.dispose();
    this.terminal.dispose();
    this.writeEmitter.dispose();
  }

  private assertNotReleased(): void {
    if (this.released) throw new Error(`Terminal ${this.terminalId} was released`);
  }
}

function terminalName(params: CreateTerminalParams): string {
  const line = params.args?.length ? params.args[params.args.length - 1] : params.command;
  const oneLine = line.replace(/\s+/g, ' ').trim();
  return `Agent Bash: ${oneLine.length > 40 ? `${oneLine.slice(0, 39)}…` : oneLine}`;
}
