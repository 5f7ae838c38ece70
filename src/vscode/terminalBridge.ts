// The client terminal bridge backed by VS Code terminals: ACP-shaped `createTerminal` for the pipeline,
// the ACP host and the public API. Owns every BridgeTerminal it made: reaps those left unreleased after
// exit, and kills them all on dispose.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { BridgeCreateOptions, ClientBridge, CreateTerminalParams, TerminalHandle } from '../core/contracts';
import type { SandboxRuntime } from '../exec/sandbox/sandboxRuntime';
import { BridgeTerminal } from './bridgeTerminal';

export const DEFAULT_RELEASE_TTL_MS = 10 * 60 * 1000;
export const DEFAULT_KEEP = 10;

export function unknownTerminalMessage(id: string): string {
  return `Unknown terminal id: ${id}`;
}

export interface TerminalBridgeOptions {
  shell: () => { path: string; args: string[] };
  baseEnv: () => NodeJS.ProcessEnv;
  defaultCwd: () => string;
  /** Terminals exited but not released within this are released by the reaper. */
  releaseTtlMs?: number;
  /** Reveal new terminals without taking focus. */
  reveal?: () => boolean;
  /** Released terminals kept on screen for reading back (oldest closed first); 0 closes at release. */
  keep?: () => number;
  /** The OS sandbox every terminal's process runs in. */
  sandbox?: SandboxRuntime;
}

export class VsCodeTerminalBridge implements ClientBridge, vscode.Disposable {
  readonly capabilities = { terminal: true };
  private readonly terminals = new Map<string, BridgeTerminal>();
  private readonly owners = new Map<string, string>();
  /** Released terminals still on screen, oldest first. */
  private readonly kept: BridgeTerminal[] = [];
  private readonly reaper: NodeJS.Timeout;
  // Pseudoterminal.close is not called for every way a terminal goes away (a programmatic dispose,
  // some remote hosts); the close event is, so a closed terminal's process is killed either way.
  private readonly closeSub = vscode.window.onDidCloseTerminal((closed) => {
    for (const term of this.terminals.values()) if (term.terminal === closed) void term.release();
    const at = this.kept.findIndex((t) => t.terminal === closed);
    if (at >= 0) this.kept.splice(at, 1)[0].disposeView();
  });

  constructor(private readonly opts: TerminalBridgeOptions) {
    const ttl = opts.releaseTtlMs ?? DEFAULT_RELEASE_TTL_MS;
    this.reaper = setInterval(() => this.reap(ttl), Math.max(1000, Math.min(ttl, 60_000)));
    this.reaper.unref();
  }

  async createTerminal(params: CreateTerminalParams, options: BridgeCreateOptions = {}): Promise<BridgeTerminal> {
    // Sandbox `on` where it cannot start: refused here, before a terminal exists.
    this.opts.sandbox?.levelFor(options.sandbox);
    const id = `term_${randomUUID().slice(0, 8)}`;
    const term = new BridgeTerminal(
      {
        id,
        params,
        shell: this.opts.shell(),
        baseEnv: this.opts.baseEnv(),
        defaultCwd: this.opts.defaultCwd(),
        show: this.opts.reveal?.() ?? true,
        ...(this.opts.sandbox ? { sandbox: this.opts.sandbox } : {}),
        ...(options.sandbox ? { sandboxMode: options.sandbox } : {}),
      },
      (released) => {
        this.terminals.delete(released);
        this.owners.delete(released);
        this.keepOnScreen(term);
      },
    );
    this.terminals.set(id, term);
    if (options.owner) this.owners.set(id, options.owner);
    return term;
  }

  get(terminalId: string): TerminalHandle {
    const term = this.terminals.get(terminalId);
    if (!term) throw new Error(unknownTerminalMessage(terminalId));
    return term;
  }

  list(): BridgeTerminal[] {
    return [...this.terminals.values()];
  }

  async releaseOwner(owner: string): Promise<void> {
    const mine = [...this.owners].filter(([, o]) => o === owner).map(([id]) => this.terminals.get(id));
    await Promise.all(mine.map((t) => t?.release()));
  }

  private keepOnScreen(term: BridgeTerminal): void {
    this.kept.push(term);
    const keep = Math.max(0, Math.floor(this.opts.keep?.() ?? DEFAULT_KEEP));
    while (this.kept.length > keep) (this.kept.shift() as BridgeTerminal).disposeView();
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
    this.closeSub.dispose();
    for (const t of this.kept.splice(0)) t.disposeView();
  }

  dispose(): void {
    void this.disposeAsync();
  }
}
