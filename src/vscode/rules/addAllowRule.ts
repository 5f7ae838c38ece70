// "Add Allow Rule" from the history: the same rules "Always allow…" would propose for the command
// (one per command of the line that needs one, at a safe arity, or exact), saved where the user
// picks, announced with Undo.
import * as vscode from 'vscode';
import type { PolicyRule, RuleLayer } from '../../core/contracts';
import { code, plainNotice } from '../../core/humanMessages';
import { ALLOW_EXACT, ALLOW_LIKE, checkedRulesFor, SAVE_USER, SAVE_WORKSPACE, type SavedRules } from '../approvals/approvalDialog';
import type { ProposalKind } from '../../core/policy/rules/proposalCheck';
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

/** "Allow Commands Like…" or "Allow This Exact Command", as the quick pick names each with its rules. */
export function kindLabel(kind: ProposalKind, rules: readonly PolicyRule[]): string {
  const list = rules.map((r) => r.match).join(', ');
  return kind === 'exact' ? `${ALLOW_EXACT}: ${list}` : `${ALLOW_LIKE} ${list}`;
}

/**
 * `scope` given: no question (tests and scripts), and `kind` (default "commands like…") says which
 * rules. Without a scope the person picks "commands like…" or "this exact command" (each showing its
 * rules, one per command of the line that needs one), then where to save. Returns what was saved.
 */
export async function addAllowRule(
  pipeline: PipelineLike,
  settings: RuleSaver,
  command: string,
  cwd: string,
  scope?: 'workspace' | 'user',
  kind: ProposalKind = 'like',
): Promise<SavedRules | undefined> {
  const req = { command, cwd, decision: pipeline.explain(command, cwd) };
  const like = checkedRulesFor(req, settings.ruleLayers(), 'like');
  const exact = checkedRulesFor(req, settings.ruleLayers(), 'exact');
  let check = kind === 'exact' ? exact : like;
  if (!scope && like.rules.length && exact.rules.length && like.rules.some((r, i) => r.match !== exact.rules[i]?.match)) {
    const picked = await vscode.window.showQuickPick(
      [
        { label: kindLabel('like', like.rules), check: like },
        { label: kindLabel('exact', exact.rules), check: exact },
      ],
      { title: `Always allow ${code(command)}`, placeHolder: [...like.notes].join('; ') || 'Which rules to save' },
    );
    if (!picked) return undefined;
    check = picked.check;
  }
  const rules = check.rules;
  if (rules.length === 0) {
    void vscode.window.showWarningMessage(plainNotice(check.notes.length ? `Agent Bash: no allow rule saved: ${check.notes.join('; ')}.` : noRuleMessage(command)));
    return undefined;
  }
  if (!scope) {
    const picked = await vscode.window.showQuickPick(
      [
        { label: SAVE_WORKSPACE, scope: 'workspace' as const },
        { label: SAVE_USER, scope: 'user' as const },
      ],
      { title: `Always allow: ${rules.map((r) => `${r.match}${r.exact === true ? ' (exactly)' : ''}`).join(', ')}`, placeHolder: check.notes.length ? check.notes.join('; ') : 'Where to save the rules' },
    );
    if (!picked) return undefined;
    scope = picked.scope;
  }
  const saved = await settings.addRules(rules, scope);
  announceSavedRules(saved, () => settings.removeRules(saved));
  return saved;
}
