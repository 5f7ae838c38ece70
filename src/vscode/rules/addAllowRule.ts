// "Add Allow Rule" from the history: the same rules "Always allow…" would propose for the command
// (one per segment, at a safe arity), saved where the user picks, announced with Undo.
import * as vscode from 'vscode';
import type { PolicyRule, RuleLayer } from '../../core/contracts';
import { code } from '../../core/humanMessages';
import { checkedRulesFor, SAVE_USER, SAVE_WORKSPACE, type SavedRules } from '../approvals/approvalDialog';
import { announceSavedRules } from './savedRulesNotice';
import type { PipelineLike } from '../services';

export function noRuleMessage(command: string): string {
  return `Agent Bash: no safe allow rule fits ${code(command)} (Agent Bash cannot read it for sure, or it would allow too much).`;
}

export interface RuleSaver {
  addRules(rules: PolicyRule[], scope: 'workspace' | 'user'): Promise<SavedRules>;
  removeRules(saved: SavedRules): Promise<void>;
  ruleLayers(): readonly RuleLayer[];
}

/** `scope` given: no question (tests and scripts). Returns what was saved. */
export async function addAllowRule(
  pipeline: PipelineLike,
  settings: RuleSaver,
  command: string,
  cwd: string,
  scope?: 'workspace' | 'user',
): Promise<SavedRules | undefined> {
  const check = checkedRulesFor({ command, cwd, decision: pipeline.explain(command, cwd) }, settings.ruleLayers());
  const rules = check.rules;
  if (rules.length === 0) {
    void vscode.window.showWarningMessage(check.notes.length ? `Agent Bash: no allow rule saved: ${check.notes.join('; ')}.` : noRuleMessage(command));
    return undefined;
  }
  if (!scope) {
    const picked = await vscode.window.showQuickPick(
      [
        { label: SAVE_WORKSPACE, scope: 'workspace' as const },
        { label: SAVE_USER, scope: 'user' as const },
      ],
      { title: `Always allow: ${rules.map((r) => r.match).join(', ')}`, placeHolder: 'Where to save the rules' },
    );
    if (!picked) return undefined;
    scope = picked.scope;
  }
  const saved = await settings.addRules(rules, scope);
  announceSavedRules(saved, () => settings.removeRules(saved));
  return saved;
}
