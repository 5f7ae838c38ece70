// Room vscode/approvals/: asking the person about a prompt-level command (the dialog and its modals).
// Approvals for prompt-level commands: Allow once / Allow for this session / Always allow… / Deny,
// naming who asks. Escape is Deny (there is no separate Cancel). "Allow for this session" is remembered
// here, per caller session, and answers later identical requests of that session without asking.
// "Always allow…" shows the rules it would save (one per segment, at a safe arity, checked against the
// deny and prompt rules of every layer) and where, with Allow once instead and Back (Escape is Back: it
// never denies the command the user meant to allow); once saved, a notification names them with an
// Undo that removes exactly those rules.
import type { ApprovalAnswer, ApprovalRequest, Approver, PolicyRule, RuleLayer } from '../../core/contracts';
import { code, whyAsked } from '../../core/humanMessages';
import { checkProposal, type ProposalCheck } from '../../core/policy/proposalCheck';
import { layerLabel } from '../../core/policy/ruleLayerLabel';
import { SessionApprovals } from '../../core/sessionApprovals';
import type { QuestionAsker } from './modalPrompter';

export const ALLOW_ONCE = 'Allow once';
export const ALLOW_SESSION = 'Allow for this session';
export const ALWAYS_ALLOW = 'Always allow…';
export const DENY = 'Deny';
export const SAVE_WORKSPACE = 'Save to Workspace Settings';
export const SAVE_USER = 'Save to User Settings';
/** The second step's way out without saving: the command runs this once. */
export const ALLOW_ONCE_INSTEAD = 'Allow once instead';
/** The second step's way back to the first (also what Escape does there). */
export const BACK = 'Back';
export const APPROVAL_TITLE = 'Agent Bash: run this command?';
export const ALWAYS_TITLE = 'Agent Bash: always allow commands matching these rules?';

/** The dialog's title: who is asking, or the neutral title when the caller is unnamed. */
export function approvalTitle(req: ApprovalRequest): string {
  return req.caller?.name ? `Agent Bash: ${req.caller.name} wants to run a command` : APPROVAL_TITLE;
}

/** True for a command approval (whoever asks), as opposed to the "where to save" step or other questions. */
export function isApprovalQuestion(q: { buttons: string[] }): boolean {
  return q.buttons.includes(ALLOW_SESSION);
}

/** What the person reads who answers after the caller withdrew the request (the dialog cannot be closed for them). */
export function withdrawnMessage(req: ApprovalRequest): string {
  return `Agent Bash: ${req.caller?.name || 'the caller'} cancelled this request before you answered; ${code(req.command)} did not run.`;
}

export function approvalDetail(req: ApprovalRequest): string {
  return [
    ...(req.description ? [`What it does (the caller's words): ${elide(req.description, 500)}`] : []),
    `Command: ${elide(req.command, 2000)}`,
    `Working directory: ${req.cwd}`,
    `Why you are asked: ${whyAsked(req.command, req.decision)}`,
  ].join('\n');
}

/**
 * What "Always allow…" may save for this request under the rules in force: the proposed rules,
 * checked against every layer's deny and prompt rules (narrowed or refused, with notes), or none
 * with `caughtBy` when such a rule catches the command itself.
 */
export function checkedRulesFor(req: ApprovalRequest, layers: readonly RuleLayer[]): ProposalCheck {
  if (req.decision.uncertain) return { rules: [], notes: [] };
  return checkProposal({ command: req.command, segments: req.decision.segments.map((s) => s.segment), uncertain: false }, layers);
}

export function rulesFor(req: ApprovalRequest, layers: readonly RuleLayer[]): PolicyRule[] {
  return checkedRulesFor(req, layers).rules;
}

/** The first step's text: the request, then where the rule that asks comes from (when a rule of a known layer decided). */
export function firstStepDetail(req: ApprovalRequest): string {
  const from = ruleOrigin(req.decision);
  return from ? `${approvalDetail(req)}\n${from}` : approvalDetail(req);
}

/** "Rule `git push *` is from workspace settings." when a rule of a known layer decided. */
export function ruleOrigin(decision: ApprovalRequest['decision']): string | undefined {
  if (!decision.rule || !decision.layer) return undefined;
  return `Rule \`${decision.rule.match}\` is from ${layerLabel(decision.layer, decision.layerSource)}.`;
}

/** Where rules went: the settings file a person can open. */
export interface SavedRules {
  rules: PolicyRule[];
  scope: 'workspace' | 'user';
  /** "workspace settings (.vscode/settings.json)" or "user settings". */
  where: string;
}

export interface RuleStore {
  /** Saves the rules; returns those actually added (already present ones are not) and where. */
  add(rules: PolicyRule[], scope: 'workspace' | 'user'): Promise<SavedRules>;
  /** Removes exactly these rules from that scope. */
  remove(saved: SavedRules): Promise<void>;
  /** The rule layers in force, which proposed rules are checked against before they are offered. */
  layers(): readonly RuleLayer[];
}

/** "Saved 2 allow rules to workspace settings (.vscode/settings.json): `git status *`, `npm test *`." */
export function savedRulesMessage(saved: SavedRules): string {
  const n = saved.rules.length;
  if (n === 0) return `Agent Bash: those rules were already in ${saved.where}; nothing new was saved.`;
  const list = saved.rules.map((r) => `\`${r.match}\``).join(', ');
  return `Agent Bash: saved ${n === 1 ? 'an allow rule' : `${n} allow rules`} to ${saved.where}: ${list}.`;
}
export function undoneRulesMessage(saved: SavedRules): string {
  return `Agent Bash: removed ${saved.rules.map((r) => `\`${r.match}\``).join(', ')} from ${saved.where}.`;
}
export const UNDO = 'Undo';

export class DialogApprover implements Approver {
  readonly session = new SessionApprovals();
  /** The last "Always allow…" save, for Undo. */
  lastSaved: SavedRules | undefined;

  constructor(
    private readonly prompter: QuestionAsker,
    private readonly store: RuleStore,
    private readonly announce: (saved: SavedRules, undo: () => Promise<void>) => void = () => undefined,
  ) {}

  /** `asker`: where to ask instead of the modal (an agent panel's inline card). */
  async approve(req: ApprovalRequest, signal?: AbortSignal, asker: QuestionAsker = this.prompter): Promise<ApprovalAnswer> {
    if (this.session.has(req)) return { kind: 'session' };
    const check = checkedRulesFor(req, this.store.layers());
    const rules = check.rules;
    const buttons = rules.length ? [ALLOW_ONCE, ALLOW_SESSION, ALWAYS_ALLOW, DENY] : [ALLOW_ONCE, ALLOW_SESSION, DENY];
    const withdrawn = withdrawnMessage(req);
    const detail = check.caughtBy ? `${firstStepDetail(req)}\nNot offered: Always allow… (${check.notes.join('; ')}).` : firstStepDetail(req);
    // Back on the second step asks the first question again; only the first step can deny.
    for (;;) {
      const answer = await asker.ask({ message: approvalTitle(req), detail, buttons, closeButton: DENY, withdrawn }, signal);
      if (answer === ALLOW_ONCE) return { kind: 'allow' };
      if (answer === ALLOW_SESSION) {
        this.session.remember(req);
        return { kind: 'session' };
      }
      if (answer !== ALWAYS_ALLOW || signal?.aborted) return { kind: 'deny' };
      const where = await asker.ask(
        {
          message: ALWAYS_TITLE,
          detail: [`For ${code(req.command)}:`, ...rules.map((r) => `allow: ${r.match}`), ...check.notes].join('\n'),
          buttons: [SAVE_WORKSPACE, SAVE_USER, ALLOW_ONCE_INSTEAD, BACK],
          closeButton: BACK,
          withdrawn,
        },
        signal,
      );
      // A cancelled request (the signal fired, the panel closed) is not a way back: nobody is asked again.
      if (signal?.aborted) return { kind: 'deny' };
      if (where === ALLOW_ONCE_INSTEAD) return { kind: 'allow' };
      if (where === BACK) continue;
      if (where !== SAVE_WORKSPACE && where !== SAVE_USER) return { kind: 'deny' };
      const scope = where === SAVE_WORKSPACE ? 'workspace' : 'user';
      const saved = await this.store.add(rules, scope);
      this.lastSaved = saved;
      this.announce(saved, () => this.undo(saved));
      return { kind: 'always', rules, scope };
    }
  }

  /** Removes the rules of one save (the notification's Undo). */
  async undo(saved: SavedRules): Promise<void> {
    await this.store.remove(saved);
    if (this.lastSaved === saved) this.lastSaved = undefined;
  }
}

function elide(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}[…${text.length - max}ch elided…]`;
}
