// Room vscode/approvals/: asking the person about a prompt-level command (the dialog and its modals).
// Approvals for prompt-level commands: Allow once / Allow for this session / Always allow… / Deny,
// naming who asks. Escape is Deny (there is no separate Cancel). "Allow for this session" is remembered
// here, per caller session, and answers later identical requests of that session without asking.
// "Always allow…" shows the rules it would save, one per command of the line that needs one, each
// named ("commands like…": the program and its subcommand then `*`, at a safe arity; checked against
// the deny and prompt rules of every layer), and where, with "Allow This Exact Command" instead
// (exact rules: that command's words only), "Edit Patterns…" (each pattern shown and editable, never
// broader than program and subcommand), Allow once instead and Back (Escape is Back: it never denies
// the command the user meant to allow); once saved, a notification names them with an Undo that
// removes exactly those rules.
import type { ApprovalAnswer, ApprovalRequest, Approver, PolicyRule, RuleLayer } from '../../core/contracts';
import { code, whyAsked } from '../../core/humanMessages';
import { checkEditedPattern, checkProposal, type ProposalCheck, type ProposalKind, type SegmentProposal } from '../../core/policy/rules/proposalCheck';
import { layerLabel } from '../../core/policy/rules/ruleLayerLabel';
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
/** The second step's switch to exact rules (that command's words only), and back. */
export const ALLOW_EXACT = 'Allow This Exact Command';
export const ALLOW_LIKE = 'Allow Commands Like…';
/** The second step's way to change each "commands like…" pattern before saving. */
export const EDIT_PATTERNS = 'Edit Patterns…';

/** Asks the person for one segment's pattern (shown filled in); `problem`: why the last answer was refused. Undefined: cancelled. */
export type PatternEditor = (proposal: SegmentProposal, current: string, problem?: string) => Promise<string | undefined>;

/** "Command 2, `sh`: allow commands like `sh *`" — one line per proposed rule, naming its command. */
export function proposalLines(segments: readonly SegmentProposal[], count: number): string[] {
  return segments.map((p) => {
    const what = p.rule.exact === true ? `this exact command \`${p.rule.match}\`` : `commands like \`${p.rule.match}\``;
    return count > 1 ? `Command ${p.index}, ${code(p.text)}: allow ${what}` : `allow: ${p.rule.exact === true ? `${p.rule.match} (exactly)` : p.rule.match}`;
  });
}

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
    ...(req.readOnlyNotEnforced ? [`Note: ${req.readOnlyNotEnforced}, so commands allowed as reads run on the policy's reading alone.`] : []),
  ].join('\n');
}

/**
 * What "Always allow…" may save for this request under the rules in force: the proposed rules,
 * checked against every layer's deny and prompt rules (narrowed or refused, with notes), or none
 * with `caughtBy` when such a rule catches the command itself.
 */
export function checkedRulesFor(req: ApprovalRequest, layers: readonly RuleLayer[], kind: ProposalKind = 'like'): ProposalCheck & { segments: SegmentProposal[] } {
  if (req.decision.uncertain) return { rules: [], notes: [], segments: [] };
  return checkProposal({ command: req.command, segments: req.decision.segments.map((s) => s.segment), uncertain: false }, layers, kind);
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
  const list = saved.rules.map((r) => `\`${r.match}\`${r.exact === true ? ' (exactly)' : ''}`).join(', ');
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
    /** Where the person edits a pattern (an input box); without it "Edit Patterns…" is not offered. */
    private readonly editPattern?: PatternEditor,
  ) {}

  /** `asker`: where to ask instead of the modal (an agent panel's inline card). */
  async approve(req: ApprovalRequest, signal?: AbortSignal, asker: QuestionAsker = this.prompter): Promise<ApprovalAnswer> {
    if (this.session.has(req)) return { kind: 'session' };
    const layers = this.store.layers();
    const like = checkedRulesFor(req, layers, 'like');
    const exact = checkedRulesFor(req, layers, 'exact');
    const buttons = like.rules.length || exact.rules.length ? [ALLOW_ONCE, ALLOW_SESSION, ALWAYS_ALLOW, DENY] : [ALLOW_ONCE, ALLOW_SESSION, DENY];
    const withdrawn = withdrawnMessage(req);
    const detail = like.caughtBy ? `${firstStepDetail(req)}\nNot offered: Always allow… (${like.notes.join('; ')}).` : firstStepDetail(req);
    // Back on the second step asks the first question again; only the first step can deny.
    for (;;) {
      const answer = await asker.ask({ message: approvalTitle(req), detail, buttons, closeButton: DENY, withdrawn }, signal);
      if (answer === ALLOW_ONCE) return { kind: 'allow' };
      if (answer === ALLOW_SESSION) {
        this.session.remember(req);
        return { kind: 'session' };
      }
      if (answer !== ALWAYS_ALLOW || signal?.aborted) return { kind: 'deny' };
      // The second step: "commands like…" first (when there are any), exact on request, patterns editable.
      let kind: ProposalKind = like.rules.length ? 'like' : 'exact';
      let edited: SegmentProposal[] | undefined;
      let back = false;
      while (!back) {
        const shown = kind === 'exact' ? exact : like;
        const segments = kind === 'like' && edited ? edited : shown.segments;
        const rules = uniqueRules(segments.map((p) => p.rule));
        const other = kind === 'like' ? exact : like;
        const secondButtons = [SAVE_WORKSPACE, SAVE_USER];
        if (other.rules.length && !sameRules(other.rules, rules)) secondButtons.push(kind === 'like' ? ALLOW_EXACT : ALLOW_LIKE);
        if (kind === 'like' && this.editPattern) secondButtons.push(EDIT_PATTERNS);
        secondButtons.push(ALLOW_ONCE_INSTEAD, BACK);
        const where = await asker.ask(
          {
            message: ALWAYS_TITLE,
            detail: [`For ${code(req.command)}:`, ...proposalLines(segments, req.decision.segments.length), ...shown.notes].join('\n'),
            buttons: secondButtons,
            closeButton: BACK,
            withdrawn,
          },
          signal,
        );
        // A cancelled request (the signal fired, the panel closed) is not a way back: nobody is asked again.
        if (signal?.aborted) return { kind: 'deny' };
        if (where === ALLOW_ONCE_INSTEAD) return { kind: 'allow' };
        if (where === BACK) {
          back = true;
          continue;
        }
        if (where === ALLOW_EXACT || where === ALLOW_LIKE) {
          kind = where === ALLOW_EXACT ? 'exact' : 'like';
          continue;
        }
        if (where === EDIT_PATTERNS && this.editPattern) {
          edited = (await this.editAll(segments, layers, this.editPattern)) ?? edited;
          if (signal?.aborted) return { kind: 'deny' };
          continue;
        }
        if (where !== SAVE_WORKSPACE && where !== SAVE_USER) return { kind: 'deny' };
        const scope = where === SAVE_WORKSPACE ? 'workspace' : 'user';
        const saved = await this.store.add(rules, scope);
        this.lastSaved = saved;
        this.announce(saved, () => this.undo(saved));
        return { kind: 'always', rules, scope };
      }
    }
  }

  /** Each segment's pattern shown for editing, checked (checkEditedPattern) until valid; undefined when one edit was cancelled. */
  private async editAll(segments: readonly SegmentProposal[], layers: readonly RuleLayer[], edit: PatternEditor): Promise<SegmentProposal[] | undefined> {
    const out: SegmentProposal[] = [];
    for (const p of segments) {
      if (p.rule.exact === true) {
        out.push(p);
        continue;
      }
      let current = p.rule.match;
      let problem: string | undefined;
      for (;;) {
        const answer = await edit(p, current, problem);
        if (answer === undefined) return undefined;
        const checked = checkEditedPattern(answer, p, layers);
        if (checked.ok) {
          out.push({ ...p, rule: checked.rule });
          break;
        }
        current = answer;
        problem = checked.message;
      }
    }
    return out;
  }

  /** Removes the rules of one save (the notification's Undo). */
  async undo(saved: SavedRules): Promise<void> {
    await this.store.remove(saved);
    if (this.lastSaved === saved) this.lastSaved = undefined;
  }
}

function ruleKey(r: PolicyRule): string {
  return `${r.exact === true ? 'exact' : 'glob'}\0${r.match}`;
}

function uniqueRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const seen = new Set<string>();
  return rules.filter((r) => !seen.has(ruleKey(r)) && seen.add(ruleKey(r)));
}

function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => ruleKey(r) === ruleKey(b[i]));
}

function elide(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}[…${text.length - max}ch elided…]`;
}
