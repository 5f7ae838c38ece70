// The "Agent Bash" history view (panel area): one row per command with who ran it, who decided, how it
// ended, how long it took and how much it printed. Clicking a row shows its terminal, or its full
// output once the terminal is gone; the context menu opens the output, explains the policy decision,
// runs it again, copies it, or adds an allow rule for it.
import * as vscode from 'vscode';
import { entryDescription, entryTooltip, type HistoryEntry } from '../../core/history';
import type { HistoryStore } from './historyStore';
import { historyFullOutputUri, historyIdOf, historyOutputUri } from './outputDocument';

export const HISTORY_VIEW_ID = 'agentBash.history';
export const HISTORY_COMMANDS = {
  open: 'agentBash.history.open',
  openOutput: 'agentBash.history.openOutput',
  openFullOutput: 'agentBash.history.openFullOutput',
  explain: 'agentBash.history.explain',
  runAgain: 'agentBash.history.runAgain',
  copyCommand: 'agentBash.history.copyCommand',
  addAllowRule: 'agentBash.history.addAllowRule',
  clear: 'agentBash.history.clear',
} as const;

export interface HistoryViewDeps {
  store: HistoryStore;
  /** The VS Code terminal behind a bridge terminal id, while it is still open. */
  findTerminal(terminalId: string): vscode.Terminal | undefined;
  /** Proposes allow rules for a command (judged where it ran) and saves them where the user picks. */
  addAllowRule(command: string, cwd: string | undefined): Promise<void>;
}

export class HistoryTreeProvider implements vscode.TreeDataProvider<HistoryEntry> {
  readonly onDidChangeTreeData: vscode.Event<void>;

  constructor(private readonly store: HistoryStore) {
    this.onDidChangeTreeData = store.onDidChange;
  }

  getChildren(element?: HistoryEntry): HistoryEntry[] {
    return element ? [] : [...this.store.entries];
  }

  getTreeItem(e: HistoryEntry): vscode.TreeItem {
    const item = new vscode.TreeItem(oneLine(e.command), vscode.TreeItemCollapsibleState.None);
    item.id = e.id;
    item.description = entryDescription(e);
    item.tooltip = entryTooltip(e);
    item.iconPath = iconOf(e);
    item.contextValue = 'agentBashHistoryEntry';
    item.command = { command: HISTORY_COMMANDS.open, title: 'Show', arguments: [e] };
    item.accessibilityInformation = { label: `${e.command}: ${entryDescription(e)}` };
    return item;
  }
}

export function registerHistoryView(context: vscode.ExtensionContext, deps: HistoryViewDeps): vscode.TreeView<HistoryEntry> {
  const { store } = deps;
  const view = vscode.window.createTreeView(HISTORY_VIEW_ID, { treeDataProvider: new HistoryTreeProvider(store) });
  // A row (the view), an entry id (a caller), or an output document's URI (its title bar).
  const entryOf = (arg: unknown): HistoryEntry | undefined => {
    if (typeof arg === 'string') return store.get(arg);
    if (arg instanceof vscode.Uri) {
      const id = historyIdOf(arg);
      return id === undefined ? undefined : store.get(id);
    }
    if (arg !== undefined && arg !== null) return arg as HistoryEntry;
    // From the palette: the output document in the active editor, else the row selected in the view.
    const shown = vscode.window.activeTextEditor?.document.uri;
    const shownId = shown ? historyIdOf(shown) : undefined;
    return (shownId !== undefined ? store.get(shownId) : undefined) ?? view.selection[0];
  };
  const reg = (id: string, fn: (entry: HistoryEntry) => unknown) =>
    vscode.commands.registerCommand(id, (arg?: unknown) => {
      const entry = entryOf(arg);
      return entry ? fn(entry) : undefined;
    });
  context.subscriptions.push(
    view,
    reg(HISTORY_COMMANDS.open, (e) => {
      const terminal = e.terminalId ? deps.findTerminal(e.terminalId) : undefined;
      if (terminal && vscode.window.terminals.includes(terminal)) {
        terminal.show(false);
        return terminal;
      }
      return openHistoryOutput(e);
    }),
    reg(HISTORY_COMMANDS.openOutput, (e) => openHistoryOutput(e)),
    reg(HISTORY_COMMANDS.openFullOutput, (e) => openHistoryOutput(e, true)),
    reg(HISTORY_COMMANDS.explain, (e) => vscode.commands.executeCommand('agentBash.explain', { command: e.command, show: true })),
    reg(HISTORY_COMMANDS.runAgain, (e) => vscode.commands.executeCommand('agentBash.run', { command: e.command, ...(e.cwd ? { cwd: e.cwd } : {}) })),
    reg(HISTORY_COMMANDS.copyCommand, (e) => vscode.env.clipboard.writeText(e.command)),
    reg(HISTORY_COMMANDS.addAllowRule, (e) => deps.addAllowRule(e.command, e.cwd)),
    vscode.commands.registerCommand(HISTORY_COMMANDS.clear, () => store.clear()),
  );
  return view;
}

/** The entry's output as a read-only document (command, cwd and exit status on top). */
export async function openHistoryOutput(entry: Pick<HistoryEntry, 'id' | 'command' | 'at'>, full = false): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(full ? historyFullOutputUri(entry) : historyOutputUri(entry));
  return vscode.window.showTextDocument(doc, { preview: true });
}

function iconOf(e: HistoryEntry): vscode.ThemeIcon {
  const color = (id: string) => new vscode.ThemeColor(id);
  if (e.end === 'running') return new vscode.ThemeIcon('loading~spin');
  if (e.decision.outcome === 'denied') return new vscode.ThemeIcon('circle-slash', color('errorForeground'));
  // The person's own Ctrl+C is a stop, not a failure.
  if (e.end === 'signal' && e.stoppedWithCtrlC) return new vscode.ThemeIcon('debug-stop', color('disabledForeground'));
  if (e.decision.outcome !== 'allowed' || e.end === 'cancelled') return new vscode.ThemeIcon('debug-stop', color('disabledForeground'));
  switch (e.end) {
    case 'exit':
      return e.exitCode === 0
        ? new vscode.ThemeIcon('pass', color('testing.iconPassed'))
        : new vscode.ThemeIcon('error', color('testing.iconFailed'));
    case 'background':
      return new vscode.ThemeIcon('sync');
    case 'timeout':
      return new vscode.ThemeIcon('watch', color('testing.iconFailed'));
    default:
      return new vscode.ThemeIcon('error', color('testing.iconFailed'));
  }
}

function oneLine(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
