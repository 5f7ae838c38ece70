// "Always allow…" may only widen what no rule forbids. Before anything is saved:
// - a command that a deny or prompt rule of any layer catches gets no rules at all (the dialog
//   says which rule and which layer), even when the decision asked for another reason;
// - each proposed allow rule is tried against the examples every deny and prompt rule was written
//   for: its own text with each `*` filled by a few representative strings (`echo secret*` →
//   `echo secret`, `echo secret-a3`, …) and by the words of the command being approved (`git *
//   --force` approving `git push origin` → `git push --force`). A proposal that would allow one of
//   them is narrowed to the exact command, and refused when even that would.
// Saving appends at the end of a layer and deny beats allow across layers (layeredRules.ts), so a
// saved rule cannot relax a deny today; this check keeps it from doing so once the deny is moved,
// edited or lives in another scope, and keeps the saved rule as narrow as the user's intent.
import type { PolicyRule, RuleLayer, RuleLayerName, Segment, ShellAnalysis } from '../policyContracts';
import { LayeredRules, type LayeredMatch } from './layeredRules';
import { exactProposalFor, exactRuleFor, proposalForSegment, proposalStem } from './ruleProposal';
import { globExamples, globMatches, normalizeCommandText, ruleTooComplex } from './ruleGlob';
import { exactPlainText, segmentExactText } from './exactRule';
import { shown } from '../policyReasons';

/** What fills each `*` of a deny/prompt rule to make its examples: nothing, a word, an option, a path… */
export const EXAMPLE_FILLS: readonly string[] = ['', 'x', '-a3', ' x', ' -f /tmp/x', '/'];

/** A deny or prompt rule and where it comes from. */
export interface RestrictingRule {
  rule: PolicyRule;
  /** Its layer's name (undefined for an unnamed rule list). */
  layer?: RuleLayerName;
  /** Its layer's source as a person reads it (`user settings`, a file path, …). */
  source: string;
  /** The text it caught (a segment, the segment as written, or the whole command). */
  text: string;
}

export interface ProposalCheck {
  /** The rules that may be saved, some narrowed to the exact command; empty when none may. */
  rules: PolicyRule[];
  /** The deny or prompt rule that catches the command itself: Always allow… is not offered. */
  caughtBy?: RestrictingRule;
  /** One line per proposal narrowed or refused, and for `caughtBy`: what the dialog shows. */
  notes: string[];
}

export const PROPOSAL_NOTES = {
  caught: (c: RestrictingRule) =>
    `\`${shown(c.text)}\` matches ${c.rule.approval} rule \`${c.rule.match}\` (${c.source}), so it cannot be always allowed`,
  narrowed: (from: string, to: string, example: string, by: RestrictingRule) =>
    `\`${from}\` would also allow \`${shown(example)}\`, which ${by.rule.approval} rule \`${by.rule.match}\` (${by.source}) covers: saving \`${to}\` instead`,
  refused: (from: string, example: string, by: RestrictingRule) =>
    `\`${from}\` would allow \`${shown(example)}\`, which ${by.rule.approval} rule \`${by.rule.match}\` (${by.source}) covers: not saved`,
  /** A command of the line no rule can allow (opaque, or a word with no static text): the line keeps asking. */
  noRule: (index: number, text: string) =>
    `command ${index}, \`${shown(text)}\`, gets no rule (no rule can let it run without asking), so this line will still ask`,
} as const;

/** The texts of a segment the policy matches rules against (see policy.ts decideSegment), with the exact words where they apply. */
function segmentTexts(seg: Segment): Array<{ text: string; exactText?: string }> {
  const exactText = segmentExactText(seg);
  const texts: Array<{ text: string; exactText?: string }> = [{ text: seg.text, ...(exactText !== undefined ? { exactText } : {}) }, { text: normalizeCommandText(seg.source) }];
  if (seg.prefix?.length) {
    const wrapped = segmentExactText(seg, seg.prefix);
    texts.push({ text: normalizeCommandText([...seg.prefix, ...seg.argv].join(' ')), ...(wrapped !== undefined ? { exactText: wrapped } : {}) });
  }
  return texts.filter((t) => t.text !== '');
}

function restricting(m: LayeredMatch, text: string): RestrictingRule {
  return { rule: m.rule, ...(m.layer.layer !== undefined ? { layer: m.layer.layer } : {}), source: m.layer.source, text };
}

/** The deny or prompt rule of any layer that catches the command (a segment or the whole line). */
export function findRestrictingRule(analysis: Pick<ShellAnalysis, 'command' | 'segments'>, layers: readonly RuleLayer[]): RestrictingRule | undefined {
  const lookup = new LayeredRules(layers);
  const texts = [...analysis.segments.flatMap(segmentTexts), { text: normalizeCommandText(analysis.command) }];
  let found: RestrictingRule | undefined;
  for (const { text, exactText } of texts) {
    const m = text === '' ? null : lookup.first(text, undefined, exactText);
    if (!m || m.rule.approval === 'allow') continue;
    if (!found || (m.rule.approval === 'deny' && found.rule.approval !== 'deny')) found = restricting(m, text);
  }
  return found;
}

/** Most fills taken from the command being approved. */
const MAX_COMMAND_FILLS = 48;

/** Fills from the command being approved: each word, and the runs of words from its start and to its end. */
function commandFills(segments: readonly Segment[]): string[] {
  const out = new Set<string>();
  for (const seg of segments) {
    const words = seg.argv.filter((w) => w !== '');
    for (let k = 0; k < words.length; k++) {
      out.add(words[k]);
      out.add(words.slice(0, k + 1).join(' '));
      out.add(words.slice(k).join(' '));
    }
  }
  return [...out].filter((f) => f.length <= 200).slice(0, MAX_COMMAND_FILLS);
}

/** The texts a rule was written for: a glob's examples, an exact rule's own command. */
function ruleExamples(rule: PolicyRule, fills: readonly string[]): string[] {
  if (rule.exact !== true) return globExamples(rule.match, fills);
  const plain = exactPlainText(rule.match);
  return plain === undefined ? [] : [plain];
}

/** Whether `rule` would match the plain text `example` (an exact rule: when the example is its words). */
function ruleMatchesExample(rule: PolicyRule, example: string): boolean {
  return rule.exact === true ? exactPlainText(rule.match) === example : globMatches(rule.match, example);
}

/** The first example of a deny or prompt rule that `rule` would allow, and that rule. */
function firstViolation(rule: PolicyRule, restrictive: readonly LayeredMatch[], fills: readonly string[]): { example: string; by: RestrictingRule } | undefined {
  for (const m of restrictive) {
    for (const example of ruleExamples(m.rule, fills)) {
      if (ruleMatchesExample(rule, example)) return { example, by: restricting(m, example) };
    }
  }
  return undefined;
}

/** Which proposal: "commands like…" (program and subcommand, then `*`) or "this exact command". */
export type ProposalKind = 'like' | 'exact';

/** One segment's proposal, named for the dialog. */
export interface SegmentProposal {
  /** 1-based index of the segment in the line. */
  index: number;
  /** The segment's text, as the dialog names it. */
  text: string;
  /** The rule that may be saved for it (narrowed to the exact command when needed). */
  rule: PolicyRule;
}

/**
 * The rules "Always allow…" may save for this command under these layers: one per segment that
 * needs one (a segment a rule already allows gets none), each checked against the deny/prompt
 * rules' examples, narrowed to the exact command or refused with a note. `kind: 'exact'` proposes
 * exact rules (exactRule.ts) only.
 */
export function checkProposal(analysis: ShellAnalysis, layers: readonly RuleLayer[], kind: ProposalKind = 'like'): ProposalCheck & { segments: SegmentProposal[] } {
  if (analysis.uncertain) return { rules: [], notes: [], segments: [] };
  const caughtBy = findRestrictingRule(analysis, layers);
  if (caughtBy) return { rules: [], caughtBy, notes: [PROPOSAL_NOTES.caught(caughtBy)], segments: [] };
  const lookup = new LayeredRules(layers);
  const restrictive = lookup.restrictive();
  const fills = [...EXAMPLE_FILLS, ...commandFills(analysis.segments)];
  const rules: PolicyRule[] = [];
  const notes: string[] = [];
  const segments: SegmentProposal[] = [];
  const seen = new Set<string>();
  const add = (rule: PolicyRule, index: number, seg: Segment): void => {
    segments.push({ index, text: seg.text || seg.source, rule });
    const key = `${rule.exact === true ? 'exact' : 'glob'}\0${rule.match}`;
    if (seen.has(key)) return;
    seen.add(key);
    rules.push(rule);
  };
  analysis.segments.forEach((seg, k) => {
    // A segment a rule already allows needs no new one.
    const exactText = seg.privileged ? segmentExactText(seg, seg.prefix) : segmentExactText(seg);
    const allowedText = seg.privileged && seg.prefix?.length ? normalizeCommandText([...seg.prefix, ...seg.argv].join(' ')) : seg.text;
    if (allowedText !== '' && lookup.first(allowedText, undefined, exactText)?.rule.approval === 'allow') return;
    const exact = kind === 'exact' ? exactRuleFor(seg) : exactProposalFor(seg) === undefined ? undefined : { match: exactProposalFor(seg) as string, approval: 'allow' as const };
    const proposed = kind === 'exact' ? exact : proposalForSegment(seg);
    if (!proposed) {
      notes.push(PROPOSAL_NOTES.noRule(k + 1, seg.text || seg.source));
      return;
    }
    const violation = firstViolation(proposed, restrictive, fills);
    if (!violation) {
      add(proposed, k + 1, seg);
      return;
    }
    const exactViolation = exact === undefined || exact.match === proposed.match ? violation : firstViolation(exact, restrictive, fills);
    if (exact !== undefined && exactViolation === undefined) {
      notes.push(PROPOSAL_NOTES.narrowed(proposed.match, exact.match, violation.example, violation.by));
      add(exact, k + 1, seg);
    } else {
      const why = exactViolation ?? violation;
      notes.push(PROPOSAL_NOTES.refused(exact?.match ?? proposed.match, why.example, why.by));
    }
  });
  return { rules, notes, segments };
}

/** Why an edited "commands like…" pattern cannot be saved. Tests assert these. */
export const EDIT_MESSAGES = {
  empty: 'the pattern is empty',
  everything: '`*` alone would allow every command',
  stem: (stem: string) => `the pattern must start with \`${stem}\` (it may be narrower than the proposal, never broader)`,
  misses: (pattern: string, text: string) => `\`${pattern}\` does not match \`${shown(text)}\`, so it would not allow this command`,
} as const;

/**
 * An edited "commands like…" pattern for one segment, checked: not `*` alone, starting with the
 * proposal's program and subcommand as literal words, still matching the segment, within the glob
 * limits, and allowing no example of a deny or prompt rule. The rule, or the reason it cannot be saved.
 */
export function checkEditedPattern(edited: string, proposal: SegmentProposal, layers: readonly RuleLayer[]): { ok: true; rule: PolicyRule } | { ok: false; message: string } {
  const match = normalizeCommandText(edited);
  if (match === '') return { ok: false, message: EDIT_MESSAGES.empty };
  if (/^\*+$/.test(match)) return { ok: false, message: EDIT_MESSAGES.everything };
  const tooBig = ruleTooComplex(match);
  if (tooBig !== undefined) return { ok: false, message: tooBig };
  const stem = proposalStem(proposal.rule.match).join(' ');
  // The stem's words are literal in the proposal (escapeGlob): the edit must keep them as written, whole.
  if (match !== stem && !match.startsWith(`${stem} `)) return { ok: false, message: EDIT_MESSAGES.stem(stem) };
  const rule: PolicyRule = { match, approval: 'allow' };
  if (!globMatches(match, proposal.text)) return { ok: false, message: EDIT_MESSAGES.misses(match, proposal.text) };
  const violation = firstViolation(rule, new LayeredRules(layers).restrictive(), [...EXAMPLE_FILLS, ...proposal.text.split(' ')]);
  if (violation) return { ok: false, message: PROPOSAL_NOTES.refused(match, violation.example, violation.by) };
  return { ok: true, rule };
}
