// Room vscode/rules/: the person's saved policy rules (Manage Rules, Add Allow Rule, the saved-rules notice).
// Agent Bash: Manage Rules. A webview listing the rules of every layer in the order the policy reads
// them (built-in, managed, user, workspace, folder), where each comes from, with add / remove / move in
// the user and workspace layers (each written with config.update at its own scope, so the other scope
// keeps its rules), and a line that tries a command against the rules in force (nothing runs). The
// page gets only local assets under a strict Content-Security-Policy with a per-load nonce.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { PolicyDecision, RuleLayer } from '../../core/policy/policyContracts';
import {
  applyRuleEdit,
  LAYER_ORDER,
  layerTitle,
  rowsOfRaw,
  rowsOfRules,
  tryView,
  withConflicts,
  type EditableLayer,
  type LayerView,
  type RuleEdit,
  type TryView,
} from './manageRulesModel';

export const MANAGE_RULES_COMMAND = 'agentBash.manageRules';
export const MANAGE_RULES_VIEW_TYPE = 'agentBash.manageRules';
export const MANAGE_RULES_TITLE = 'Agent Bash: Rules';
const SECTION = 'agentBash';

/** Messages from the page. */
export type RulesInbound =
  | { type: 'ready' }
  | { type: 'edit'; layer: EditableLayer; edit: RuleEdit }
  | { type: 'try'; command: string }
  | { type: 'open'; layer: EditableLayer }
  /** Undo the last removal (the notice's Undo). */
  | { type: 'undo' };

/** Messages to the page. */
export type RulesOutbound =
  | { type: 'state'; layers: LayerView[] }
  | { type: 'tried'; result: TryView | { command: string; error: string } }
  /** `undo`: the notice offers Undo (after a removal). */
  | { type: 'notice'; text: string; error: boolean; undo?: boolean };

export interface ManageRulesDeps {
  extensionUri: vscode.Uri;
  /** The rules in force, per layer (the settings store's reader: built-in, managed, user, workspace, folder). */
  layers(): RuleLayer[];
  /** The policy's decision on a command, as Explain Policy Decision gives it. */
  explain(command: string): PolicyDecision;
}

export class ManageRulesPanel implements vscode.Disposable {
  private static current: ManageRulesPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  readonly nonce = randomBytes(16).toString('base64');
  /** What the page was last sent (tests read it). */
  state: LayerView[] = [];
  lastTried: RulesOutbound | undefined;
  lastNotice: { text: string; error: boolean; undo?: boolean } | undefined;
  /** The last removal, for Undo: the layer, the entry as it was and its position. */
  private lastRemoved: { layer: EditableLayer; index: number; entry: unknown } | undefined;

  static closeOpen(): void {
    ManageRulesPanel.current?.dispose();
  }

  /** Opens the view, or brings the open one to the front. */
  static show(deps: ManageRulesDeps): ManageRulesPanel {
    const open = ManageRulesPanel.current;
    if (open && !open.disposed) {
      open.panel.reveal();
      open.refresh();
      return open;
    }
    const media = vscode.Uri.joinPath(deps.extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(
      MANAGE_RULES_VIEW_TYPE,
      MANAGE_RULES_TITLE,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [media] },
    );
    ManageRulesPanel.current = new ManageRulesPanel(panel, deps);
    return ManageRulesPanel.current;
  }

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly deps: ManageRulesDeps,
  ) {
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: RulesInbound) => void this.handleMessage(m)),
      panel.onDidDispose(() => this.cleanup()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION)) this.refresh();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.refresh()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.refresh()),
    );
    this.state = this.layerViews();
  }

  /** The page's requests; public so tests can drive the view without a DOM. */
  async handleMessage(message: RulesInbound): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.refresh();
        return;
      case 'edit':
        await this.edit(message.layer, message.edit);
        return;
      case 'try':
        this.tryCommand(message.command);
        return;
      case 'undo':
        await this.undoRemove();
        return;
      case 'open':
        await vscode.commands.executeCommand(
          message.layer === 'workspace' ? 'workbench.action.openWorkspaceSettingsFile' : 'workbench.action.openSettingsJson',
        );
        return;
    }
  }

  refresh(): void {
    this.state = this.layerViews();
    this.post({ type: 'state', layers: this.state });
  }

  /**
   * Every layer in order; the user and workspace layers as their settings hold them (invalid entries
   * shown); each rule with its conflicts (an allow always overridden, a rule that can never match, a duplicate).
   */
  layerViews(): LayerView[] {
    const views = this.plainLayerViews();
    return withConflicts(views, (v) => v.layer === 'workspace' && !vscode.workspace.isTrusted);
  }

  private plainLayerViews(): LayerView[] {
    const read = this.deps.layers();
    const config = vscode.workspace.getConfiguration(SECTION);
    const inspected = config.inspect<unknown>('patterns');
    const views: LayerView[] = [];
    for (const layer of LAYER_ORDER) {
      if (layer === 'user') {
        const { rows, problem } = rowsOfRaw(inspected?.globalValue);
        views.push({ layer, title: 'User settings', source: 'your user settings.json', editable: problem === undefined, rules: rows, ...(problem ? { note: problem } : {}) });
        continue;
      }
      if (layer === 'workspace') {
        views.push(this.workspaceView(inspected?.workspaceValue));
        continue;
      }
      const found = read.filter((l) => l.layer === layer);
      for (const l of found) {
        // A layer that could not be read says why (the policy side's `problem`, e.g. an invalid managed file).
        const problem = (l as RuleLayer & { problem?: unknown }).problem;
        const note = typeof problem === 'string' && problem ? { note: problem } : {};
        views.push({ layer, title: layerTitle(layer, l.source), source: sourceText(l), editable: false, rules: rowsOfRules(l.rules), ...note });
      }
      if (layer === 'builtin' && !found.length) {
        views.push({ layer, title: layerTitle('builtin'), source: 'agentBash.builtinRules', editable: false, note: 'Turned off (agentBash.builtinRules is false).', rules: [] });
      }
      if (layer === 'managed' && !found.length) {
        views.push({ layer, title: layerTitle('managed'), source: 'a file an administrator places on this machine', editable: false, note: 'No managed rules are in force.', rules: [] });
      }
    }
    return views;
  }

  private workspaceView(raw: unknown): LayerView {
    const base = { layer: 'workspace' as const, title: 'Workspace settings', source: workspaceSettingsPath() ?? 'no folder is open' };
    if (!vscode.workspace.workspaceFolders?.length) return { ...base, editable: false, note: 'Open a folder to have workspace rules.', rules: [] };
    const { rows, problem } = rowsOfRaw(raw);
    if (!vscode.workspace.isTrusted) {
      return { ...base, editable: false, note: 'Ignored: this workspace is not trusted, so its own rules do not apply.', rules: rows };
    }
    return { ...base, editable: problem === undefined, rules: rows, ...(problem ? { note: problem } : {}) };
  }

  /** One edit to the user or workspace layer, written at that scope only. */
  async edit(layer: EditableLayer, edit: RuleEdit): Promise<boolean> {
    // `layer` comes from the page: only the two editable names are taken.
    const name: string = layer;
    const view = name === 'user' || name === 'workspace' ? this.layerViews().find((v) => v.layer === name) : undefined;
    if (!view?.editable) {
      this.notice(`${view?.title ?? 'That layer'} cannot be edited here.`, true);
      return false;
    }
    const config = vscode.workspace.getConfiguration(SECTION);
    const inspected = config.inspect<unknown>('patterns');
    const where = layer === 'user' ? 'user settings' : 'workspace settings';
    const result = applyRuleEdit(layer === 'user' ? inspected?.globalValue : inspected?.workspaceValue, edit, where);
    if (!result.ok) {
      this.notice(result.message, true);
      this.refresh();
      return false;
    }
    try {
      await config.update('patterns', result.value, layer === 'user' ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace);
    } catch (err) {
      this.notice(`Could not write ${where}: ${err instanceof Error ? err.message : String(err)}`, true);
      return false;
    }
    this.lastRemoved = result.removed ? { layer, ...result.removed } : undefined;
    this.refresh();
    this.notice(result.summary, false, result.removed !== undefined);
    return true;
  }

  /** Puts the last removed rule back where it was (once). */
  async undoRemove(): Promise<boolean> {
    const removed = this.lastRemoved;
    if (!removed) {
      this.notice('Nothing to undo.', true);
      return false;
    }
    this.lastRemoved = undefined;
    return this.edit(removed.layer, { op: 'restore', index: removed.index, entry: removed.entry });
  }

  tryCommand(command: string): void {
    if (typeof command !== 'string' || !command.trim()) {
      this.lastTried = { type: 'tried', result: { command: '', error: 'Type a command to try (nothing runs).' } };
    } else {
      try {
        this.lastTried = { type: 'tried', result: tryView(command, this.deps.explain(command)) };
      } catch (err) {
        this.lastTried = { type: 'tried', result: { command, error: err instanceof Error ? err.message : String(err) } };
      }
    }
    this.post(this.lastTried);
  }

  private notice(text: string, error: boolean, undo = false): void {
    this.lastNotice = { text, error, ...(undo ? { undo } : {}) };
    this.post({ type: 'notice', text, error, ...(undo ? { undo } : {}) });
  }

  private post(message: RulesOutbound): void {
    if (!this.disposed) void this.panel.webview.postMessage(message);
  }

  dispose(): void {
    this.panel.dispose();
  }

  private cleanup(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (ManageRulesPanel.current === this) ManageRulesPanel.current = undefined;
    for (const d of this.disposables) d.dispose();
  }

  /** The page: local script and style only, both gated by the nonce; no inline code, no remote loads. */
  html(): string {
    const webview = this.panel.webview;
    const media = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.deps.extensionUri, 'media', file)).toString();
    const csp = [`default-src 'none'`, `style-src ${webview.cspSource} 'nonce-${this.nonce}'`, `script-src 'nonce-${this.nonce}'`].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${this.nonce}" href="${media('manageRules.css')}">
<title>${MANAGE_RULES_TITLE}</title>
</head>
<body>
<header>
<h1>Agent Bash rules</h1>
<p class="lead">Every layer in the order Agent Bash reads it. Whatever the order, within a layer and across layers, deny beats ask beats allow. A command no rule matches asks first.</p>
</header>
<section id="try" aria-labelledby="try-label">
<form id="try-form">
<label id="try-label" for="try-input">Try a command</label>
<div class="row"><input id="try-input" type="text" spellcheck="false" autocomplete="off" placeholder="git push origin main"><button type="submit">Try</button></div>
</form>
<div id="try-result" role="status" aria-live="polite"></div>
</section>
<div id="notice" role="status" aria-live="polite"></div>
<main id="layers"></main>
<script nonce="${this.nonce}" src="${media('manageRules.js')}"></script>
</body>
</html>`;
  }
}

function sourceText(l: RuleLayer): string {
  if (l.layer === 'builtin') return 'read-only programs, shipped with Agent Bash (agentBash.builtinRules)';
  if (l.layer === 'folder') return '.vscode/settings.json of that folder';
  if (l.layer === 'managed') return `placed by an administrator (read-only): ${l.source}`;
  return l.source;
}

/** `agentBash.manageRules`: opens the view (returns it, for tests). */
export function registerManageRules(context: vscode.ExtensionContext, deps: Omit<ManageRulesDeps, 'extensionUri'>): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(MANAGE_RULES_COMMAND, () => ManageRulesPanel.show({ ...deps, extensionUri: context.extensionUri })),
    { dispose: () => ManageRulesPanel.closeOpen() },
  );
}

/** Where the workspace layer is written: `.vscode/settings.json` of the folder, or the workspace file. */
export function workspaceSettingsPath(): string | undefined {
  const file = vscode.workspace.workspaceFile;
  if (file?.scheme === 'file') return file.fsPath;
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? path.join(folder.uri.fsPath, '.vscode', 'settings.json') : undefined;
}
