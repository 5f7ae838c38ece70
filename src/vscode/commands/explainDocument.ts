// Explain Policy Decision as a read-only Markdown document (`agent-bash-explain:/<n>/<command>.md`,
// shown in the Markdown preview) written by core/explainText.ts, with the decision as a
// notification whose buttons act on it (the preview does not follow command links).
import * as vscode from 'vscode';
import type { PolicyDecision } from '../../core/contracts';
import { decisionSentence, explainMarkdown, type ExplainSandbox } from '../../core/explainText';
import { plainNotice, shortCommand } from '../../core/humanMessages';
import type { PipelineSandbox } from '../../core/pipeline';
import { readSandboxSettings } from '../settings/settings';

export const EXPLAIN_SCHEME = 'agent-bash-explain';
/** How many explanations stay readable; an older one's document says it is gone. */
const KEPT = 20;
export const ADD_ALLOW_RULE_BUTTON = 'Add Allow Rule…';
export const MANAGE_RULES_BUTTON = 'Manage Rules';

/** The texts of the latest explanations, by URI. */
export class ExplainDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 1;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(EXPLAIN_SCHEME, this);

  add(command: string, text: string): vscode.Uri {
    const name = shortCommand(command).replace(/\//g, '∕') || 'command';
    const uri = vscode.Uri.from({ scheme: EXPLAIN_SCHEME, path: `/${this.next++}/${name}.md` });
    this.texts.set(uri.toString(), text);
    while (this.texts.size > KEPT) this.texts.delete(this.texts.keys().next().value as string);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? 'Agent Bash: this explanation is no longer kept. Run Explain Policy Decision again.';
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}

/** The sandbox settings and how a call would run now. */
export function explainSandbox(sandbox: PipelineSandbox | undefined): ExplainSandbox | undefined {
  if (!sandbox) return undefined;
  const s = readSandboxSettings();
  let level: ExplainSandbox['level'];
  try {
    level = sandbox.levelFor();
  } catch (err) {
    level = { error: err instanceof Error ? err.message : String(err) };
  }
  const readOnly = sandbox.readOnly?.();
  return {
    ...(readOnly ? { readOnly } : {}),
    mode: s.enabled,
    level,
    autoApprove: s.autoApprove,
    allowWrite: s.allowWrite,
    denyRead: s.denyRead,
    denyWrite: s.denyWrite,
    allowedDomains: s.allowedDomains,
    ...(s.gitAllowWrite ? { gitAllowWrite: true } : {}),
    ...(s.sharedCaches ? { sharedCaches: true } : {}),
  };
}

/** What the buttons do, in the document's words. */
function actionLines(canAllow: boolean): string[] {
  const lines: string[] = [];
  if (canAllow) {
    lines.push(
      `**${ADD_ALLOW_RULE_BUTTON}** (on the notification, or on this command in the History view) saves allow rules that cover it, in the workspace or user settings you pick; Undo takes them back.`,
    );
  }
  lines.push(`**${MANAGE_RULES_BUTTON}** (on the notification, or *Agent Bash: Manage Rules* in the Command Palette) lists every rule in force by where it comes from, to change them or try a command.`);
  return lines;
}

/** Opens the explanation and offers its actions; returns the document's URI. */
export async function showExplanation(
  docs: ExplainDocuments,
  command: string,
  decision: PolicyDecision,
  opts: { cwd: string; sandbox?: ExplainSandbox },
): Promise<vscode.Uri> {
  const canAllow = decision.decision === 'prompt';
  const text = explainMarkdown(command, decision, { cwd: opts.cwd, ...(opts.sandbox ? { sandbox: opts.sandbox } : {}), actions: actionLines(canAllow) });
  const uri = docs.add(command, text);
  try {
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch {
    // The built-in Markdown extension is disabled: the document as text says the same.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
  }
  const buttons = canAllow ? [ADD_ALLOW_RULE_BUTTON, MANAGE_RULES_BUTTON] : [MANAGE_RULES_BUTTON];
  void vscode.window.showInformationMessage(plainNotice(decisionSentence(command, decision, opts.sandbox)), ...buttons).then((choice) => {
    if (choice === ADD_ALLOW_RULE_BUTTON) void vscode.commands.executeCommand('agentBash.history.addAllowRule', { command, cwd: opts.cwd });
    if (choice === MANAGE_RULES_BUTTON) void vscode.commands.executeCommand('agentBash.manageRules');
  });
  return uri;
}
