// One client-bridge terminal: a process in its own group, mirrored into a VS Code terminal backed by a
// Pseudoterminal, with the ACP contract on top (tail of `outputByteLimit` bytes, exit status, kill,
// release). The process's own exit event is the truth for the exit status: shell integration and
// `Terminal.exitStatus` lose signals and early exits (spec acp-and-vscode-api.md §5).
import type { ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import { policyCommandLine } from '../core/policy/terminalCommandLine';
import { ByteTail } from '../core/output/byteTail';
import { killByEnv, killProcessTree, signalGroup, spawnInGroup } from '../exec/processTree';
import { wrapSpawn, type SandboxRuntime } from '../exec/sandbox/sandboxRuntime';
import { refusalLine } from '../exec/sandbox/violations';
import { TERMINAL_ENV } from './processMarks';
import { TerminalView } from './terminalView';
import type {
  CreateTerminalParams,
  OutputSinkLike,
  TerminalExitStatus,
  TerminalHandle,
  TerminalOutput,
} from '../core/contracts';

/** After the process exits, wait this long for pipes held by background children. */
const DRAIN_IDLE_MS = 250;
const DRAIN_MAX_MS = 2000;
const KILL_GRACE_MS = 1000;
/**
 * ACP leaves `outputByteLimit` optional; without one the client picks. Memory must stay bounded
 * whatever a command prints, so a caller that sets none keeps the last 4 MiB (`truncated` says so).
 */
export const DEFAULT_OUTPUT_BYTE_LIMIT = 4 * 1024 * 1024;

export interface BridgeTerminalOptions {
  id: string;
  params: CreateTerminalParams;
  shell: { path: string; args: string[] };
  baseEnv: NodeJS.ProcessEnv;
  defaultCwd: string;
  show: boolean;
  /** Wraps the process in the OS sandbox / PID namespace; absent: runs it as it is. */
  sandbox?: SandboxRuntime;
  /** `off`: outside the OS sandbox (still contained). */
  sandboxMode?: 'off';
}

/** ACP `command` is an executable; a raw line with no args (claude-code-acp's shape) needs a shell. */
export function needsShell(params: CreateTerminalParams): boolean {
  return (!params.args || params.args.length === 0) && /[\s;&|<>()$`'"\\*?~{}[\]#=!]/.test(params.command);
}

export function exitLine(status: TerminalExitStatus): string {
  return status.signal ? `[killed by ${status.signal}]` : `[exit code ${status.exitCode}]`;
}

export class BridgeTerminal implements TerminalHandle {
  readonly terminalId: string;
  readonly terminal: vscode.Terminal;
  readonly pid: number | undefined;
  private readonly child: ChildProcess;
  private readonly tail: ByteTail;
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly listeners = new Set<(chunk: string) => void>();
  private readonly sinks: OutputSinkLike[] = [];
  /** Only for pushed-output listeners; the terminal view decodes on its own, lazily. */
  private readonly decoder = new TextDecoder('utf-8');
  private readonly view: TerminalView;
  private exitStatus: TerminalExitStatus | null = null;
  private readonly exited: Promise<TerminalExitStatus>;
  private released = false;
  private viewDisposed = false;
  private killing: Promise<void> | undefined;
  exitedAt: number | undefined;

  constructor(opts: BridgeTerminalOptions, private readonly onReleased: (id: string) => void) {
    this.terminalId = opts.id;
    const { params } = opts;
    this.tail = new ByteTail(params.outputByteLimit ?? DEFAULT_OUTPUT_BYTE_LIMIT);
    this.view = new TerminalView(this.writeEmitter);
    const viaShell = needsShell(params);
    // What runs, for whoever watches (the view only: output, tail and artifact stay the command's own).
    this.view.writeStatus(`$ ${policyCommandLine(params)}`);
    const file = viaShell ? opts.shell.path : params.command;
    const args = viaShell ? [...opts.shell.args, params.command] : (params.args ?? []);
    const env: NodeJS.ProcessEnv = { ...opts.baseEnv };
    for (const v of params.env ?? []) env[v.name] = v.value;
    env[TERMINAL_ENV] = opts.id;

    const pty: vscode.Pseudoterminal = {
      onDidWrite: this.writeEmitter.event,
      open: () => this.view.open(),
      // The user closed the terminal: nothing it started may keep running.
      close: () => {
        void this.release();
      },
      handleInput: (data) => {
        if (data === '\x03' && !this.exitStatus) void this.kill();
      },
    };
    this.terminal = vscode.window.createTerminal({
      name: terminalName(params),
      pty,
      iconPath: new vscode.ThemeIcon('terminal-bash'),
    });
    if (opts.show) this.terminal.show(true);

    // Throws SandboxUnavailableError (sandbox `on`, none here) before anything starts.
    const wrapped = wrapSpawn(opts.sandbox, [file, ...args], {
      env: env as Record<string, string>,
      ...(opts.sandboxMode ? { sandbox: opts.sandboxMode } : {}),
      onRefused: (r) => this.onData(Buffer.from(refusalLine(r.host, r.port))),
    });
    this.child = spawnInGroup(wrapped.file, wrapped.args, { cwd: params.cwd ?? opts.defaultCwd, env: wrapped.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.once('exit', () => wrapped.dispose());
    this.pid = this.child.pid;
    this.child.stdout?.on('data', (b: Buffer) => this.onData(b));
    this.child.stderr?.on('data', (b: Buffer) => this.onData(b));
    this.exited = new Promise<TerminalExitStatus>((resolve) => {
      this.child.once('error', (err: NodeJS.ErrnoException) => {
        this.onData(Buffer.from(`${spawnErrorText(file, err)}\n`));
        this.finish({ exitCode: err.code === 'ENOENT' ? 127 : 126, signal: null }, resolve);
      });
      this.child.once('exit', (code, signal) => {
        void this.drain().then(() => this.finish({ exitCode: signal ? null : code, signal: signal ?? null }, resolve));
      });
    });
  }

  get running(): boolean {
    return this.exitStatus === null;
  }

  async currentOutput(): Promise<TerminalOutput> {
    this.assertNotReleased();
    return { output: this.tail.text(), truncated: this.tail.truncated, exitStatus: this.exitStatus };
  }

  waitForExit(): Promise<TerminalExitStatus> {
    this.assertNotReleased();
    return this.exited;
  }

  onOutput(listener: (chunk: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  pipeTo(sink: OutputSinkLike): void {
    this.sinks.push(sink);
  }

  kill(): Promise<void> {
    if (this.exitStatus || this.child.pid === undefined) return Promise.resolve();
    this.killing ??= killProcessTree(this.child, { graceMs: KILL_GRACE_MS });
    return this.killing;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.child.pid !== undefined) {
      if (this.exitStatus === null) await this.kill();
      // Background children the command left in its group go too, and so does anything that left the
      // group (setsid, double fork): it still carries this terminal's mark. Nothing outlives a release.
      signalGroup(this.child.pid, 'SIGKILL');
      // The /proc sweep costs a few ms on a busy machine: done right after, off the result's path.
      setImmediate(() => killByEnv(TERMINAL_ENV, this.terminalId));
    }
    this.listeners.clear();
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

  private onData(chunk: Buffer): void {
    this.tail.push(chunk);
    for (const sink of this.sinks) sink.push(chunk);
    this.view.write(chunk);
    if (this.listeners.size === 0) return;
    const text = this.decoder.decode(chunk, { stream: true });
    if (text) for (const l of this.listeners) l(text);
  }

  /** Resolves once stdout/stderr closed, or were idle for DRAIN_IDLE_MS, or DRAIN_MAX_MS passed. */
  private drain(): Promise<void> {
    const streams = [this.child.stdout, this.child.stderr].filter((s): s is NonNullable<typeof s> => !!s);
    return new Promise((resolve) => {
      let idle: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(idle);
        clearTimeout(max);
        for (const s of streams) {
          s.removeListener('data', bump);
          s.destroy();
        }
        resolve();
      };
      const bump = () => {
        clearTimeout(idle);
        idle = setTimeout(done, DRAIN_IDLE_MS);
      };
      const max = setTimeout(done, DRAIN_MAX_MS);
      let open = streams.filter((s) => !s.closed).length;
      if (open === 0) return done();
      for (const s of streams) {
        s.on('data', bump);
        s.once('close', () => {
          if (--open === 0) done();
        });
      }
      bump();
    });
  }

  private finish(status: TerminalExitStatus, resolve: (s: TerminalExitStatus) => void): void {
    if (this.exitStatus) return;
    const rest = this.decoder.decode();
    if (rest) for (const l of this.listeners) l(rest);
    this.exitStatus = status;
    this.exitedAt = Date.now();
    this.view.writeStatus(exitLine(status));
    resolve(status);
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

function spawnErrorText(file: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return `${file}: command not found`;
  return `${file}: ${err.message}`;
}

