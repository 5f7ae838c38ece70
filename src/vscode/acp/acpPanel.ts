// The agent panel: a webview that sends prompts (`session/prompt`), streams the agent's text, shows tool
// calls with their status, and shows each embedded terminal as a card with live output that reveals the
// VS Code terminal when clicked. Stop sends `session/cancel`. The webview gets only local assets under a
// strict Content-Security-Policy with a per-load nonce. While the panel is visible, the agent's approval
// questions (its permission requests, its prompt-level commands) are asked inline as cards with the
// dialog's choices instead of a modal that would freeze the workbench.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { AcpAgentConnection, TerminalCreatedEvent } from '../../acp/agentConnection';
import { boundedTail, toolStatusWord, turnEndStatus, turnFailedStatus } from '../../acp/panelText';
import { ACP_SANDBOX_RETRY } from '../../acp/terminalHost';
import { Transcript, type TranscriptItem } from '../../acp/transcript';
import type { TerminalHandle, TerminalExitStatus } from '../../core/contracts';
import { exitLine } from '../terminals/commandTerminal';
import type { ModalQuestion, QuestionAsker } from '../approvals/modalPrompter';

export const ACP_PANEL_VIEW_TYPE = 'agentBash.acpPanel';
export function panelTitle(agentName: string): string {
  return `ACP: ${agentName}`;
}
export function disconnectedStatus(reason: string): string {
  return `Disconnected: ${reason}`;
}
export const TERMINAL_GONE_MESSAGE = 'Agent Bash: that terminal was already closed.';
/** Output kept per terminal card, from a line start; the VS Code terminal and the agent have the rest. */
export const CARD_OUTPUT_MAX_CHARS = 16 * 1024;
/** What a tool call's own text shows at most (its end, from a line start). */
export const TOOL_TEXT_MAX_CHARS = 8 * 1024;
const OUTPUT_FLUSH_MS = 50;

/** Messages from the webview. */
export type PanelInbound =
  | { type: 'ready' }
  | { type: 'prompt'; text: string }
  | { type: 'stop' }
  | { type: 'reveal'; terminalId: string }
  | { type: 'answer'; id: number; button: string };

/** Messages to the webview. */
export type PanelOutbound =
  | { type: 'reset'; items: ShownItem[]; cards: CardState[]; busy: boolean; status: string }
  | { type: 'item'; index: number; item: ShownItem }
  | { type: 'card'; card: CardState }
  | { type: 'busy'; busy: boolean }
  | { type: 'status'; text: string }
  | { type: 'ask'; question: ModalQuestion & { id: number } }
  | { type: 'unask'; id: number };

export interface CardState {
  terminalId: string;
  commandLine: string;
  /** The end of the output, from a line start, at most CARD_OUTPUT_MAX_CHARS. */
  output: string;
  /** Set when earlier output was left out (the terminal has it). */
  cut?: boolean;
  exit?: string;
}

/** A transcript item as the page gets it: a tool call's state in a word, its text bounded. */
export type ShownItem = TranscriptItem | (Extract<TranscriptItem, { kind: 'tool' }> & { statusText: string });

export function shownItem(item: TranscriptItem): ShownItem {
  if (item.kind !== 'tool') return item.kind === 'agent' ? { ...item, text: withoutAgentInstructions(item.text) } : item;
  const tail = boundedTail(withoutAgentInstructions(item.text), TOOL_TEXT_MAX_CHARS);
  return { ...item, text: tail.cut ? `…\n${tail.text}` : tail.text, statusText: toolStatusWord(item.status) };
}

/**
 * What the person reads of a text written for the agent: the retry instruction with its `_meta`
 * (ACP_SANDBOX_RETRY) is the agent's; the notice before it (what the sandbox refused) stays.
 */
export function withoutAgentInstructions(text: string): string {
  return text.split(` ${ACP_SANDBOX_RETRY}`).join('').split(ACP_SANDBOX_RETRY).join('');
}

export class AcpPanel implements vscode.Disposable, QuestionAsker {
  readonly transcript = new Transcript();
  readonly cards = new Map<string, CardState>();
  private readonly terminals = new Map<string, vscode.Terminal>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly unsubscribers: Array<() => void> = [];
  private readonly dirtyCards = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private busy = false;
  private status: string;
  private disposed = false;
  private nextQuestion = 1;
  /** Open inline questions: id → how to answer it (undefined: dismissed). */
  readonly questions = new Map<number, { question: ModalQuestion; resolve: (answer: string | undefined) => void }>();
  readonly nonce = randomBytes(16).toString('base64');

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    readonly connection: AcpAgentConnection,
    private readonly findTerminal: (terminalId: string) => vscode.Terminal | undefined,
  ) {
    this.status = `Connected to ${connection.agentInfo?.title ?? connection.agentInfo?.name ?? connection.name}`;
    panel.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')] };
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: PanelInbound) => void this.handleMessage(m)),
      // Closing the panel is how the user ends the agent: its process and terminals go with it.
      panel.onDidDispose(() => {
        this.cleanup();
        void connection.disconnect('the panel was closed');
      }),
    );
    this.unsubscribers.push(
      connection.onUpdate((n) => {
        const index = this.transcript.apply(n.update);
        if (index === undefined) return;
        const item = this.transcript.items[index] as TranscriptItem;
        if (item.kind === 'tool') for (const id of item.terminalIds) this.ensureCard(id);
        this.post({ type: 'item', index, item: shownItem(item) });
      }),
      connection.onTerminalCreated((e) => this.track(e)),
      connection.onClosed((reason) => {
        this.busy = false;
        this.setStatus(disconnectedStatus(reason));
        this.post({ type: 'busy', busy: false });
      }),
    );
  }

  static open(
    extensionUri: vscode.Uri,
    connection: AcpAgentConnection,
    findTerminal: (terminalId: string) => vscode.Terminal | undefined,
  ): AcpPanel {
    const panel = vscode.window.createWebviewPanel(
      ACP_PANEL_VIEW_TYPE,
      panelTitle(connection.name),
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')] },
    );
    return new AcpPanel(panel, extensionUri, connection, findTerminal);
  }

  /** The webview's requests; public so tests can drive the panel without a DOM. */
  async handleMessage(message: PanelInbound): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.post({ type: 'reset', items: this.transcript.items.map(shownItem), cards: [...this.cards.values()], busy: this.busy, status: this.status });
        for (const [id, q] of this.questions) this.post({ type: 'ask', question: { ...q.question, id } });
        return;
      case 'prompt':
        await this.sendPrompt(message.text);
        return;
      case 'stop':
        if (this.connection.isConnected) await this.connection.cancel();
        return;
      case 'reveal':
        this.reveal(message.terminalId);
        return;
      case 'answer':
        this.questions.get(message.id)?.resolve(message.button);
        return;
    }
  }

  /** The status line: "Connected to …", "Done", "Stopped", "Failed: …", "Disconnected: …". */
  get statusText(): string {
    return this.status;
  }

  /** True while the user can see the panel (then questions are asked here, not in a modal). */
  get canAsk(): boolean {
    return !this.disposed && this.panel.visible;
  }

  /** Asks inline; a closed panel or an aborted request answers undefined (which approvers read as Deny). */
  ask(question: ModalQuestion, signal?: AbortSignal): Promise<string | undefined> {
    if (this.disposed || signal?.aborted) return Promise.resolve(undefined);
    const id = this.nextQuestion++;
    return new Promise((resolve) => {
      const done = (answer: string | undefined) => {
        if (!this.questions.delete(id)) return;
        signal?.removeEventListener('abort', onAbort);
        this.post({ type: 'unask', id });
        resolve(answer);
      };
      const onAbort = () => done(undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.questions.set(id, { question, resolve: done });
      this.post({ type: 'ask', question: { ...question, id } });
      this.panel.reveal(undefined, false);
    });
  }

  async sendPrompt(text: string): Promise<void> {
    const trimmed = text.trim();
    if (!trimmed || this.busy || !this.connection.isConnected) return;
    const index = this.transcript.addUser(trimmed);
    this.post({ type: 'item', index, item: shownItem(this.transcript.items[index] as TranscriptItem) });
    this.busy = true;
    this.post({ type: 'busy', busy: true });
    try {
      const result = await this.connection.prompt(trimmed);
      this.setStatus(turnEndStatus(result.stopReason));
    } catch (err) {
      this.setStatus(turnFailedStatus((err as Error).message));
    } finally {
      this.busy = false;
      this.post({ type: 'busy', busy: false });
    }
  }

  /** Shows the VS Code terminal behind a card; true when there was one to show. */
  reveal(terminalId: string): boolean {
    const terminal = this.terminals.get(terminalId) ?? this.findTerminal(terminalId);
    if (!terminal || !vscode.window.terminals.includes(terminal)) {
      void vscode.window.showInformationMessage(TERMINAL_GONE_MESSAGE);
      return false;
    }
    terminal.show(false);
    return true;
  }

  /** Closes the panel, which (like the user closing it) disconnects the agent. */
  dispose(): void {
    this.panel.dispose();
  }

  private cleanup(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.flushTimer);
    for (const q of [...this.questions.values()]) q.resolve(undefined);
    for (const u of this.unsubscribers) u();
    for (const d of this.disposables) d.dispose();
  }

  private track(e: TerminalCreatedEvent): void {
    const card = this.ensureCard(e.terminalId);
    card.commandLine = e.commandLine;
    const terminal = this.findTerminal(e.terminalId);
    if (terminal) this.terminals.set(e.terminalId, terminal);
    this.follow(e.terminalId, e.handle);
    this.markDirty(e.terminalId);
  }

  private follow(terminalId: string, handle: TerminalHandle): void {
    if (handle.onOutput) this.unsubscribers.push(handle.onOutput((chunk) => this.append(terminalId, chunk)));
    handle
      .waitForExit()
      .then((status: TerminalExitStatus) => {
        const card = this.ensureCard(terminalId);
        card.exit = exitLine(status);
        this.markDirty(terminalId);
      })
      .catch(() => undefined);
  }

  private ensureCard(terminalId: string): CardState {
    let card = this.cards.get(terminalId);
    if (!card) {
      card = { terminalId, commandLine: '', output: '' };
      this.cards.set(terminalId, card);
    }
    return card;
  }

  private append(terminalId: string, chunk: string): void {
    const card = this.ensureCard(terminalId);
    card.output += chunk;
    if (card.output.length > CARD_OUTPUT_MAX_CHARS) {
      card.output = boundedTail(card.output, CARD_OUTPUT_MAX_CHARS).text;
      card.cut = true;
    }
    this.markDirty(terminalId);
  }

  private markDirty(terminalId: string): void {
    this.dirtyCards.add(terminalId);
    if (this.flushTimer || this.disposed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      for (const id of this.dirtyCards) {
        const card = this.cards.get(id);
        if (card) this.post({ type: 'card', card });
      }
      this.dirtyCards.clear();
    }, OUTPUT_FLUSH_MS);
  }

  private setStatus(text: string): void {
    this.status = text;
    this.post({ type: 'status', text });
  }

  private post(message: PanelOutbound): void {
    if (this.disposed) return;
    void this.panel.webview.postMessage(message);
  }

  /** The page: local script and style only, both gated by the nonce; no inline code, no remote loads. */
  html(): string {
    const webview = this.panel.webview;
    const media = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', file)).toString();
    const csp = [
      `default-src 'none'`,
      `img-src ${webview.cspSource}`,
      `style-src ${webview.cspSource} 'nonce-${this.nonce}'`,
      `script-src 'nonce-${this.nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${this.nonce}" href="${media('acpPanel.css')}">
<title>${escapeHtml(panelTitle(this.connection.name))}</title>
</head>
<body>
<div id="status" role="status"></div>
<main id="transcript" aria-live="polite"></main>
<div id="questions"></div>
<form id="composer">
<textarea id="prompt" rows="3" placeholder="Ask ${escapeHtml(this.connection.name)}… (Ctrl+Enter to send)"></textarea>
<div class="actions"><button id="send" type="submit">Send</button><button id="stop" type="button" disabled>Stop</button></div>
</form>
<script nonce="${this.nonce}" src="${media('markdown.js')}"></script>
<script nonce="${this.nonce}" src="${media('acpPanel.js')}"></script>
</body>
</html>`;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
