// Room vscode/terminals/: the VS Code terminals that agents' commands run and are drawn in.
// The client terminal bridge backed by VS Code terminals: ACP-shaped `createTerminal` for the pipeline,
// the ACP host and the public API. Every command gets its own id, process and output (a
// CommandTerminal), drawn in its caller's terminal (CallerTerminals). Owns every command it made:
// reaps those left unreleased after exit, and kills them all on dispose.
import { randomUUID } from 'node:crypto';
import type * as vscode from 'vscode';
import type { BridgeCreateOptions, ClientBridge, CreateTerminalParams, LocalExecutor, TerminalHandle } from '../../core/contracts';
import type { SandboxRuntime } from '../../exec/sandbox/sandboxRuntime';
import { CallerTerminals } from './callerTerminals';
import { CommandTerminal } from './commandTerminal';

export const DEFAULT_RELEASE_TTL_MS = 10 * 60 * 1000;
export const DEFAULT_KEEP = 10;
/** Stop reasons kept after release (History reads them when the result is recorded). */
const STOP_REASONS_KEPT = 100;

export function unknownTerminalMessage(id: string): string {
  return `Unknown terminal id: ${id}`;
}

export interface ClientBridgeOptions {
  shell: () => { path: string; args: string[] };
  baseEnv: () => NodeJS.ProcessEnv;
  defaultCwd: () => string;
  /** The directory a command's header line leaves unsaid (the workspace folder); default: defaultCwd. */
  workspaceCwd?: () => string;
  /** Commands exited but not released within this are released by the reaper. */
  releaseTtlMs?: number;
  /** Reveal a caller's terminal when a command starts in it, without taking focus. */
  reveal?: () => boolean;
  /** Caller terminals with no unreleased command kept on screen (oldest closed first); 0 closes at release. */
  keep?: () => number;
  /** The OS sandbox every terminal's process runs in. */
  sandbox?: SandboxRuntime;
  /**
   * The persistent shells (one per caller session) that run the pipeline's lines: a command then
   * needs no process, sandbox or shell of its own. Absent: every command starts its own process.
   */
  sessions?: LocalExecutor;
}

export class VsCodeClientBridge implements ClientBridge, vscode.Disposable {
  readonly capabilities = { terminal: true };
  readonly callerTerminals: CallerTerminals;
  private readonly terminals = new Map<string, CommandTerminal>();
  private readonly owners = new Map<string, string>();
  /** Why released commands were stopped, newest last (bounded). */
  private readonly stopReasons = new Map<string, string>();
  private readonly reaper: NodeJS.Timeout;

  constructor(private readonly opts: ClientBridgeOptions) {
    const ttl = opts.releaseTtlMs ?? DEFAULT_RELEASE_TTL_MS;
    this.reaper = setInterval(() => this.reap(ttl), Math.max(1000, Math.min(ttl, 60_000)));
    this.reaper.unref();
    // Public: bang commands draw in the same pool ("AB: You").
    this.callerTerminals = new CallerTerminals({ reveal: () => opts.reveal?.() ?? true, keep: () => opts.keep?.() ?? DEFAULT_KEEP });
  }

  async createTerminal(params: CreateTerminalParams, options: BridgeCreateOptions = {}): Promise<CommandTerminal> {
    // Sandbox `on` where it cannot start: refused here, before a terminal exists.
    this.opts.sandbox?.levelFor(options.sandbox);
    const id = `term_${randomUUID().slice(0, 8)}`;
    const host = this.callerTerminals.acquire(options.caller);
    const onReleased = (released: CommandTerminal): void => {
      if (released.stopReason !== undefined) {
        this.stopReasons.set(released.terminalId, released.stopReason);
        if (this.stopReasons.size > STOP_REASONS_KEPT) this.stopReasons.delete(this.stopReasons.keys().next().value as string);
      }
      this.terminals.delete(released.terminalId);
      this.owners.delete(released.terminalId);
      this.callerTerminals.release(released.host);
    };
    const spec = {
      id,
      params,
      shell: this.opts.shell(),
      baseEnv: this.opts.baseEnv(),
      defaultCwd: this.opts.defaultCwd(),
      quietCwd: (this.opts.workspaceCwd ?? this.opts.defaultCwd)(),
      host,
      ...(this.opts.sandbox ? { sandbox: this.opts.sandbox } : {}),
      ...(options.sandbox ? { sandboxMode: options.sandbox } : {}),
      ...(options.description ? { description: options.description } : {}),
      ...(options.session && this.opts.sessions ? { session: { ...options.session, executor: this.opts.sessions } } : {}),
      // An auto-approved read stays fenced whichever way it runs (a process of its own too).
      ...(options.readOnly ?? options.session?.readOnly ? { readOnly: options.readOnly ?? options.session?.readOnly } : {}),
    };
    let term: CommandTerminal;
    try {
      term = new CommandTerminal(spec, onReleased);
    } catch (err) {
      this.callerTerminals.release(host);
      throw err;
    }
    this.terminals.set(id, term);
    if (options.owner) this.owners.set(id, options.owner);
    return term;
  }

  warm(session: { key: string; cwd: string; sandbox?: 'off' }): void {
    this.opts.sessions?.warm?.({ sessionKey: session.key, cwd: session.cwd, ...(session.sandbox ? { sandbox: session.sandbox } : {}) });
  }

  get(terminalId: string): TerminalHandle {
    const term = this.terminals.get(terminalId);
    if (!term) throw new Error(unknownTerminalMessage(terminalId));
    return term;
  }

  /** Why a command was stopped (STOPPED.ctrlC for the person's Ctrl+C), while it is known. */
  stopReasonOf(terminalId: string): string | undefined {
    return this.terminals.get(terminalId)?.stopReason ?? this.stopReasons.get(terminalId);
  }

  list(): CommandTerminal[] {
    return [...this.terminals.values()];
  }

  async releaseOwner(owner: string): Promise<void> {
    const mine = [...this.owners].filter(([, o]) => o === owner).flatMap(([id]) => this.terminals.get(id) ?? []);
    await Promise.all(mine.map((t) => t.release()));
  }

  private reap(ttlMs: number): void {
    const now = Date.now();
    for (const term of this.terminals.values()) {
      if (term.exitedAt !== undefined && now - term.exitedAt > ttlMs) void term.release();
    }
  }

  async disposeAsync(): Promise<void> {
    clearInterval(this.reaper);
    await Promise.all([...this.terminals.values()].map((t) => t.release()));
    this.callerTerminals.dispose();
  }

  dispose(): void {
    void this.disposeAsync();
  }
}
