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
import type { PolicyRule, RuleLayer, RuleLayerName, Segment, ShellAnalysis } from './policyContracts';
import { LayeredRules, type LayeredMatch } from './layeredRules';
import { exactProposalFor, proposalForSegment } from './ruleProposal';
import { globExamples, globMatches, normalizeCommandText } from './ruleGlob';
import { shown } from './policyReasons';

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
} as const;

/** The texts of a segment the policy matches rules against (see policy.ts decideSegment). */
function segmentTexts(seg: Segment): string[] {
  const texts = [seg.text, normalizeCommandText(seg.source)];
  if (seg.prefix?.length) texts.push(normalizeCommandText([...seg.prefix, ...seg.argv].join(' ')));
  return texts.filter((t) => t !== '');
}

function restricting(m: LayeredMatch, text: string): RestrictingRule {
  return { rule: m.rule, ...(m.layer.layer !== undefined ? { layer: m.layer.layer } : {}), source: m.layer.source, text };
}

/** The deny or prompt rule of any layer that catches the command (a segment or the whole line). */
export function findRestrictingRule(analysis: Pick<ShellAnalysis, 'command' | 'segments'>, layers: readonly RuleLayer[]): RestrictingRule | undefined {
  const lookup = new LayeredRules(layers);
  const texts = [...analysis.segments.flatMap(segmentTexts), normalizeCommandText(analysis.command)];
  let found: RestrictingRule | undefined;
  for (const text of texts) {
    const m = text === '' ? null : lookup.first(text);
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

/** The first example of a deny or prompt rule that `match` would allow, and that rule. */
function firstViolation(match: string, restrictive: readonly LayeredMatch[], fills: readonly string[]): { example: string; by: RestrictingRule } | undefined {
  for (const m of restrictive) {
    for (const example of globExamples(m.rule.match, fills)) {
      if (globMatches(match, example)) return { example, by: restricting(m, example) };
    }
  }
  return undefined;
}

/**
 * The rules "Always allow…" may save for this command under these layers: proposeRules' rules,
 * each checked against the deny/prompt rules' examples, narrowed or refused with a note.
 */
export function checkProposal(analysis: ShellAnalysis, layers: readonly RuleLayer[]): ProposalCheck {
  if (analysis.uncertain) return { rules: [], notes: [] };
  const caughtBy = findRestrictingRule(analysis, layers);
  if (caughtBy) return { rules: [], caughtBy, notes: [PROPOSAL_NOTES.caught(caughtBy)] };
  const restrictive = new LayeredRules(layers).restrictive();
  const fills = [...EXAMPLE_FILLS, ...commandFills(analysis.segments)];
  const rules: PolicyRule[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  const add = (match: string): void => {
    if (seen.has(match)) return;
    seen.add(match);
    rules.push({ match, approval: 'allow' });
  };
  for (const seg of analysis.segments) {
    const proposed = proposalForSegment(seg);
    if (!proposed || seen.has(proposed.match)) continue;
    const violation = firstViolation(proposed.match, restrictive, fills);
    if (!violation) {
      add(proposed.match);
      continue;
    }
    const exact = exactProposalFor(seg);
    const exactViolation = exact === undefined || exact === proposed.match ? violation : firstViolation(exact, restrictive, fills);
    if (exact !== undefined && exactViolation === undefined) {
      notes.push(PROPOSAL_NOTES.narrowed(proposed.match, exact, violation.example, violation.by));
      add(exact);
    } else {
      const why = exactViolation ?? violation;
      notes.push(PROPOSAL_NOTES.refused(exact ?? proposed.match, why.example, why.by));
    }
  }
  return { rules, notes };
}
