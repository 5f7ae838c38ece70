// Which terminal a caller's command is drawn in: one per caller session ("AB: Copilot"), reused
// while it is free. A second command of the same session that starts while the first still runs (an
// async tool call, an ACP agent creating two terminals at once) gets a terminal of its own,
// "AB: Copilot (2)", rather than a queue: an ACP agent expects its process to start now. Later
// commands go back to the first free one. A new session of a caller whose old terminal is still open
// (an agent that reconnected) is numbered the same way: no two open terminals share a name. Terminals nobody holds stay open for reading back, at most
// `keep` of them (oldest closed first; 0 closes a terminal as soon as its last command is released).
import * as vscode from 'vscode';
import type { CallerInfo } from '../../core/contracts';
import { CallerTerminal, callerTerminalName } from './callerTerminal';

interface Entry {
  term: CallerTerminal;
  session: string;
  /** The caller's name before any "(n)". */
  name: string;
  /** Commands drawn in it whose handles are not released yet. */
  holds: number;
}

export class CallerTerminals implements vscode.Disposable {
  private readonly entries: Entry[] = [];
  /** Entries nobody holds, oldest first. */
  private readonly idle: Entry[] = [];
  // Pseudoterminal.close is not called for every way a terminal goes away (a programmatic dispose,
  // some remote hosts); the close event is.
  private readonly closeSub = vscode.window.onDidCloseTerminal((closed) => {
    this.entries.find((e) => e.term.terminal === closed)?.term.closed();
  });

  constructor(private readonly opts: { reveal: () => boolean; keep: () => number }) {}

  /** A free terminal of the caller's session (made when there is none); held until `release`. */
  acquire(caller: CallerInfo | undefined): CallerTerminal {
    const session = sessionKey(caller);
    const mine = this.entries.filter((e) => e.session === session);
    let entry = mine.find((e) => !e.term.busy);
    if (!entry) {
      const name = callerTerminalName(caller);
      const same = this.entries.filter((e) => e.name === name);
      const suffix = same.length === 0 ? '' : ` (${nextNumber(same)})`;
      const term = new CallerTerminal(caller, suffix, this.opts.reveal(), (t) => this.remove(t));
      entry = { term, session, name, holds: 0 };
      this.entries.push(entry);
    } else if (this.opts.reveal()) {
      entry.term.terminal.show(true);
    }
    entry.holds++;
    const at = this.idle.indexOf(entry);
    if (at >= 0) this.idle.splice(at, 1);
    return entry.term;
  }

  release(term: CallerTerminal): void {
    const entry = this.entries.find((e) => e.term === term);
    if (!entry || --entry.holds > 0) return;
    this.idle.push(entry);
    const keep = Math.max(0, Math.floor(this.opts.keep()));
    while (this.idle.length > keep) {
      const oldest = (this.idle.shift() as Entry).term;
      this.remove(oldest);
      oldest.dispose();
    }
  }

  /** Open terminals, in the order they were made. */
  list(): CallerTerminal[] {
    return this.entries.map((e) => e.term);
  }

  dispose(): void {
    this.closeSub.dispose();
    for (const e of this.entries.splice(0)) e.term.dispose();
    this.idle.length = 0;
  }

  private remove(term: CallerTerminal): void {
    const at = this.entries.findIndex((e) => e.term === term);
    if (at < 0) return;
    const [entry] = this.entries.splice(at, 1);
    const idleAt = this.idle.indexOf(entry);
    if (idleAt >= 0) this.idle.splice(idleAt, 1);
  }
}

/** Unnamed callers (the palette, an API caller without a name) share the plain "Agent Bash" terminal. */
function sessionKey(caller: CallerInfo | undefined): string {
  const name = callerTerminalName(caller);
  return caller && name !== callerTerminalName(undefined) ? `${caller.kind}:${caller.sessionId}` : name;
}

/** The lowest "(n)" not taken by the open terminals of that name. */
function nextNumber(mine: Entry[]): number {
  const taken = new Set(mine.map((e) => Number(/\((\d+)\)$/.exec(e.term.baseName)?.[1] ?? 1)));
  let n = 2;
  while (taken.has(n)) n++;
  return n;
}
