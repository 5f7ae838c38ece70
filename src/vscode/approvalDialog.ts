// Approvals for prompt-level commands as editor dialogs: Allow once / Always allow… / Deny. "Always
// allow…" shows the rules it would save (one per segment, at a safe arity) and where to save them.
// Dismissing any dialog is Deny.
import type { ApprovalAnswer, ApprovalRequest, Approver, PolicyRule } from '../core/contracts';
import { proposeRules } from '../core/policy/ruleProposal';
import type { ModalPrompter } from './modalPrompter';

export const ALLOW_ONCE = 'Allow once';
export const ALWAYS_ALLOW = 'Always allow…';
export const DENY = 'Deny';
export const SAVE_WORKSPACE = 'Save to Workspace Settings';
export const SAVE_USER = 'Save to User Settings';
export const APPROVAL_TITLE = 'Agent Bash: run this command?';
export const ALWAYS_TITLE = 'Agent Bash: always allow commands matching these rules?';

export function approvalDetail(req: ApprovalRequest): string {
  return [`Command: ${elide(req.command, 2000)}`, `Working directory: ${req.cwd}`, `Why you are asked: ${req.decision.reason}`].join('\n');
}

export function rulesFor(req: ApprovalRequest): PolicyRule[] {
  if (req.decision.uncertain) return [];
  return proposeRules({
    command: req.command,
    segments: req.decision.segments.map((s) => s.segment),
    uncertain: false,
  });
}

export class DialogApprover implements Approver {
  constructor(
    private readonly prompter: ModalPrompter,
    private readonly saveRules: (rules: PolicyRule[], scope: 'workspace' | 'user') => Promise<void>,
  ) {}

  async approve(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer> {
    const rules = rulesFor(req);
    const buttons = rules.length ? [ALLOW_ONCE, ALWAYS_ALLOW, DENY] : [ALLOW_ONCE, DENY];
    const answer = await this.prompter.ask({ message: APPROVAL_TITLE, detail: approvalDetail(req), buttons }, signal);
    if (answer === ALLOW_ONCE) return { kind: 'allow' };
    if (answer !== ALWAYS_ALLOW) return { kind: 'deny' };
    const where = await this.prompter.ask(
      { message: ALWAYS_TITLE, detail: rules.map((r) => `allow: ${r.match}`).join('\n'), buttons: [SAVE_WORKSPACE, SAVE_USER] },
      signal,
    );
    if (where !== SAVE_WORKSPACE && where !== SAVE_USER) return { kind: 'deny' };
    const scope = where === SAVE_WORKSPACE ? 'workspace' : 'user';
    await this.saveRules(rules, scope);
    return { kind: 'always', rules, scope };
  }
}

function elide(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}[…${text.length - max}ch elided…]`;
}
