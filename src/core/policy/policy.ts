// The allow/prompt/deny policy over a shell analysis.
//
// - Rules come in layers (built-in, managed, user, workspace, folder, `--rules` files). Every rule
//   whose glob matches a text is found (see ruleGlob.ts for exactly what `*` matches; exact rules,
//   exactRule.ts, compare a segment's words); within a layer and across layers deny beats prompt
//   beats allow, whatever the order, so no rule can relax a deny or prompt (layeredRules.ts), and
//   the decision lists every deny and prompt that matched. A layer that could not be read makes
//   every command ask at least.
// - Each segment is decided on its normalised text. Deny and prompt rules also see the segment as
//   written (wrappers kept, quotes as typed) and the whole command, so `sudo *` → deny still bites
//   after `sudo` was stripped for matching.
// - The command is allowed only when EVERY segment is allowed by some allow rule and nothing below
//   raises it. A segment behind `sudo`/`doas` is allowed only by a rule that names the wrapper.
// - Floors to prompt: an uncertain analysis, a construct outside the allowable whitelist
//   (allowableShapes.ts, rawTextScan.ts), an opaque segment, a critical check (on argv), a path operand
//   or redirect target outside the workspace (or not resolvable), a walk that follows symbolic links
//   when a link under it leads outside (symlinkWalk.ts), a package manager's read form in a project
//   with its own config file (packageConfig.ts), and an output redirection to a
//   file under an allow rule without `allowRedirects`. With no rules everything prompts.
// - Deny beats everything; a deny rule therefore also overrides a critical pattern.
import type { CheckCode, CheckTrace, DecisionKind, MatchedRule, PolicyDecision, PolicyRule, RuleLayer, Segment, SegmentDecision, ShellAnalysis, Verdict } from './policyContracts';
import { findCritical } from './checks/criticalPatterns';
import { REASON, shown } from './policyReasons';
import { writesFile } from './checks/redirectTargets';
import { LayeredRules, toLayers, unreadableLayersReason, type LooseLayer } from './rules/layeredRules';
import { MatchBudgetError, normalizeCommandText, type MatchBudget } from './rules/ruleGlob';
import { basename } from './analysis/shellNormalize';
import { canonicalForms, expandedWordsReason } from './programs/pathWords';
import { findProtectedWrite } from './checks/protectedPaths';
import { findLinkOutside } from './checks/symlinkWalk';
import { findExternalPath } from './checks/workspaceScope';
import { expandInCwds, type JudgedIn } from './analysis/segmentExpansion';
import { foreignProgram } from './checks/programIdentity';
import { nestedRepository } from './checks/gitRepository';
import { projectPackageConfig } from './checks/packageConfig';
import { findInvisible, INVISIBLE_REASON } from './analysis/invisibleChars';
import type { WordExpander } from './analysis/wordExpansion';
import { cpuNow } from '../util/cpuClock';
import { segmentExactText } from './rules/exactRule';

export interface PolicyContext {
  cwd: string;
  workspaceRoots: string[];
  /** Bash's expansion of words with tilde/brace/glob syntax (absent: such words make the command ask). */
  expander?: WordExpander;
  /** Keep every check that ran, per segment and for the line (`explain --trace`). */
  trace?: boolean;
}

/** The critical pattern's name for a write to a protected workspace path (protectedPaths.ts). */
export const CRITICAL_PROTECTED_WRITE = (rel: string): string => `writes \`${rel}\`, where editor settings, git hooks or agent rules live`;

/** A word with expansion syntax the expander did not settle (wordExpansion.ts says why). */
export const UNEXPANDED_REASON = (text: string, index: number, word: string, why: string): string =>
  `\`${shown(text)}\` in segment ${index} has the word \`${shown(word)}\`, which cannot be expanded as bash would: ${why}`;

const SEVERITY: Readonly<Record<Verdict, number>> = { allow: 0, prompt: 1, deny: 2 };

/** Among prompts, the reason shown is the most specific one. */
const PROMPT_PRIORITY: readonly DecisionKind[] = [
  'critical', 'uncertain', 'opaque', 'rule', 'external_directory', 'redirect', 'default',
];

interface Outcome {
  decision: Verdict;
  kind: DecisionKind;
  rule: PolicyRule | null;
  reason: string;
  segmentIndex?: number;
}

/** Rule lookups for one decision (layered, see layeredRules.ts), memoised per text (a text can be asked for several times). */
class RuleLookup {
  private readonly memo = new Map<string, PolicyRule | null>();
  /** Every deny and prompt rule met, with the first text it matched (PolicyDecision.restrictive). */
  readonly restrictive = new Map<PolicyRule, MatchedRule>();
  /** Shared by every lookup of one decision (see MatchBudget). */
  private readonly budget: MatchBudget = { left: MATCH_BUDGET };
  /**
   * CPU time spent matching so far: the clock runs only inside lookups, so the path, link and
   * expansion checks between them are not charged to the matching budget.
   */
  private matchingMs = 0;
  constructor(private readonly layered: LayeredRules) {}

  /** `exactText`: the segment's canonical words, for exact rules (exactRule.ts). */
  first(text: string, exactText?: string): PolicyRule | null {
    if (!text) return null;
    const key = exactText === undefined ? text : `${text}\0${exactText}`;
    let rule = this.memo.get(key);
    if (rule === undefined) {
      const started = cpuNow();
      this.budget.deadline = started + MATCH_BUDGET_MS - this.matchingMs;
      try {
        const found = this.layered.lookup(text, this.budget, exactText);
        rule = found.decided?.rule ?? null;
        for (const m of found.restrictive) {
          if (!this.restrictive.has(m.rule)) this.restrictive.set(m.rule, { rule: m.rule, ...(m.layer.layer !== undefined ? { layer: m.layer.layer, layerSource: m.layer.source } : {}), text });
        }
      } finally {
        this.matchingMs += cpuNow() - started;
      }
      this.memo.set(key, rule);
    }
    return rule;
  }

  /** The layer a rule returned by `first` came from. */
  layerOf(rule: PolicyRule): LooseLayer | undefined {
    return this.layered.layerOf(rule);
  }
}

/**
 * Character comparisons one decision may spend matching rules, and the wall-clock time: past either
 * the decision is a prompt that says why. With the analysis budget (shellAnalysis.ts) a decision
 * stays under 50 ms whatever the command and the rules.
 */
const MATCH_BUDGET = 2_000_000;
const MATCH_BUDGET_MS = 25;

function better(a: Outcome, b: Outcome | undefined): boolean {
  if (!b) return true;
  if (SEVERITY[a.decision] !== SEVERITY[b.decision]) return SEVERITY[a.decision] > SEVERITY[b.decision];
  if (a.decision !== 'prompt') return false;
  return PROMPT_PRIORITY.indexOf(a.kind) < PROMPT_PRIORITY.indexOf(b.kind);
}

function shownText(seg: Segment): string {
  return seg.text || seg.source;
}

/** Texts of the segment as written, for deny/prompt rules: wrappers kept, quoting as typed. */
function writtenForms(seg: Segment): string[] {
  const forms = new Set<string>();
  if (seg.prefix?.length) forms.add(normalizeCommandText([...seg.prefix, ...seg.argv].join(' ')));
  forms.add(normalizeCommandText(seg.source));
  for (const c of canonicalForms(seg)) forms.add(normalizeCommandText(c));
  forms.delete(seg.text);
  forms.delete('');
  return [...forms];
}

const MAX_TAILS = 32;

/** `xargs -0 rm -rf x` → `rm -rf x`, `-rf x`, `x`, each with its head word's basename. */
function argvTails(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let k = 1; k < argv.length && k <= MAX_TAILS; k++) {
    const head = argv[k].trim();
    if (head === '' || head.startsWith('-')) continue;
    out.push(normalizeCommandText([basename(head.split(/\s/)[0]) + head.slice(head.split(/\s/)[0].length), ...argv.slice(k + 1)].join(' ')));
  }
  return out;
}

interface Match {
  rule: PolicyRule;
  /** The text the rule matched (the segment, or the segment as written). */
  text: string;
}

function matchOn(rules: RuleLookup, text: string, exactText?: string): Match | null {
  const rule = rules.first(text, exactText);
  return rule ? { rule, text } : null;
}

/** What a check found: the prompt it raises. */
interface Finding {
  kind: DecisionKind;
  reason: string;
}

/** One directory a segment may run in (segmentExpansion.ts), as the directory checks see it. */
interface Judged {
  seg: Segment;
  index: number;
  text: string;
  cwd: string;
  ctx: PolicyContext;
  /** The checks that already asked in this directory. */
  asked: Set<CheckCode>;
}

interface DirectoryCheck {
  name: CheckCode;
  /** Runs only on a segment an allow rule matched (otherwise the segment asks or is denied already). */
  allowedOnly?: true;
  /** Why it does not run here, when it does not. */
  skip?: (j: Judged) => string | undefined;
  /** `words`: the segment's words as bash expands them in `j.cwd`. */
  check: (j: Judged, words: Segment) => Finding | undefined;
}

/**
 * The checks on the words as bash expands them, in every directory the segment may run in (the
 * command's cwd, and where an earlier `cd` may have gone): each can raise an allow to a prompt. Run
 * in this order; the trace (`explain --trace`) names each by its code.
 */
const DIRECTORY_CHECKS: readonly DirectoryCheck[] = [
  {
    // The spec judged the written words; brace lists and patterns can change how many there are.
    name: 'expanded_words',
    skip: (j) => (j.seg.opaque ? 'the segment runs code the analysis cannot see' : undefined),
    check: (j, words) => {
      const moved = expandedWordsReason(j.seg, words);
      return moved === undefined ? undefined : { kind: 'opaque', reason: REASON.opaque(j.text, j.index, moved) };
    },
  },
  {
    name: 'protected_write',
    check: (j, words) => {
      const rel = findProtectedWrite(words, j.cwd, j.ctx.workspaceRoots);
      return rel === undefined ? undefined : { kind: 'critical', reason: REASON.critical(j.text, CRITICAL_PROTECTED_WRITE(rel)) };
    },
  },
  {
    name: 'workspace_scope',
    check: (j, words) => {
      const external = findExternalPath(words, j.cwd, j.ctx.workspaceRoots);
      if (external?.kind === 'outside') return { kind: 'external_directory', reason: REASON.outside(j.text, j.index, external.word, external.resolved) };
      if (external?.kind === 'unresolved') return { kind: 'external_directory', reason: REASON.unresolved(j.text, j.index, external.word) };
      return undefined;
    },
  },
  { name: 'program_identity', allowedOnly: true, check: (j, words) => uncertainIf(foreignProgram(words, j.index, j.cwd)) },
  { name: 'nested_repository', allowedOnly: true, check: (j, words) => uncertainIf(nestedRepository(words, j.index, j.cwd, j.ctx.workspaceRoots)) },
  { name: 'package_config', allowedOnly: true, check: (j, words) => uncertainIf(projectPackageConfig(words, j.index, j.cwd, j.ctx.workspaceRoots)) },
  {
    // Only worth the directory scan when no path outside already makes this segment ask.
    name: 'symlink_walk',
    allowedOnly: true,
    skip: (j) => (j.asked.has('workspace_scope') ? 'a path outside the workspace already asks' : undefined),
    check: (j, words) => {
      const link = findLinkOutside(words, j.cwd, j.ctx.workspaceRoots);
      if (link?.kind === 'link') return { kind: 'external_directory', reason: REASON.linkOutside(j.text, j.index, link.link, link.resolved) };
      if (link?.kind === 'tooMany') return { kind: 'external_directory', reason: REASON.linksUnchecked(j.text, j.index, link.root) };
      return undefined;
    },
  },
];

function uncertainIf(reason: string | undefined): Finding | undefined {
  return reason === undefined ? undefined : { kind: 'uncertain', reason };
}

/** The trace entry of a rule lookup: an allow passes, a prompt or deny raises, no rule asks by default. */
function ruleTrace(rule: PolicyRule | null): CheckTrace {
  if (!rule) return { check: 'rule', result: 'ask', detail: 'no rule matched' };
  return { check: 'rule', result: rule.approval === 'allow' ? 'pass' : rule.approval === 'deny' ? 'deny' : 'ask', detail: `${rule.approval} rule \`${rule.match}\`` };
}

function decideSegment(
  seg: Segment,
  index: number,
  all: readonly Segment[],
  rules: RuleLookup,
  ctx: PolicyContext,
  variants: readonly JudgedIn[],
): { outcome: Outcome; rule: PolicyRule | null; trace?: CheckTrace[] } {
  const text = shownText(seg);
  const withWrappers = seg.prefix?.length ? normalizeCommandText([...seg.prefix, ...seg.argv].join(' ')) : seg.text;
  const textMatch = matchOn(rules, seg.text, segmentExactText(seg));
  // Behind sudo/doas only a rule that names the wrapper may allow; the bare text may still deny.
  let match: Match | null = seg.privileged ? matchOn(rules, withWrappers, segmentExactText(seg, seg.prefix)) : textMatch;
  const escalations = seg.privileged ? [textMatch] : [];
  for (const form of writtenForms(seg)) escalations.push(matchOn(rules, form));
  // A program that runs its arguments as a command hides that command somewhere in its argv:
  // deny and prompt rules are also tried on every tail (best effort; the segment prompts anyway).
  if (seg.opaque) for (const tail of argvTails(seg.argv)) escalations.push(matchOn(rules, tail));
  for (const m of escalations) {
    if (m && m.rule.approval !== 'allow' && (!match || SEVERITY[m.rule.approval] > SEVERITY[match.rule.approval])) match = m;
  }
  const rule = match?.rule ?? null;
  const allowed = rule?.approval === 'allow';
  // Kept only when asked for (explain --trace): a decision without it allocates nothing for it.
  const trace: CheckTrace[] | undefined = ctx.trace ? [ruleTrace(rule)] : undefined;

  const outcomes: Outcome[] = [];
  if (match && rule) {
    outcomes.push({ decision: rule.approval, kind: 'rule', rule, reason: REASON.segmentRule(match.text || text, index, rule.approval, rule.match), segmentIndex: index });
  } else {
    outcomes.push({ decision: 'prompt', kind: 'default', rule: null, reason: REASON.noRule(text, index), segmentIndex: index });
  }
  const where = variants.length > 1 ? (cwd: string) => ({ cwd }) : () => ({});
  const ask = (check: CheckCode, f: Finding, cwd?: string): void => {
    outcomes.push({ decision: 'prompt', kind: f.kind, rule: null, reason: f.reason, segmentIndex: index });
    trace?.push({ check, result: 'ask', detail: f.reason, ...(cwd === undefined ? {} : where(cwd)) });
  };
  const passed = (check: CheckCode, cwd?: string): void => {
    trace?.push({ check, result: 'pass', ...(cwd === undefined ? {} : where(cwd)) });
  };
  const skipped = (check: CheckCode, why: string, cwd?: string): void => {
    trace?.push({ check, result: 'skip', detail: why, ...(cwd === undefined ? {} : where(cwd)) });
  };

  const critical = findCritical(seg, all);
  if (critical) ask('critical_pattern', { kind: 'critical', reason: REASON.critical(text, critical.name) });
  else passed('critical_pattern');
  if (seg.opaque) ask('opaque', { kind: 'opaque', reason: REASON.opaque(text, index, seg.opaqueReason ?? 'runs code the analysis cannot see') });
  else passed('opaque');
  for (const { cwd, expansion } of variants) {
    if (expansion.kind === 'unexpanded') {
      ask('expansion', { kind: 'uncertain', reason: UNEXPANDED_REASON(text, index, expansion.word, expansion.why) }, cwd);
      for (const c of DIRECTORY_CHECKS) skipped(c.name, 'its words could not be expanded', cwd);
      continue;
    }
    passed('expansion', cwd);
    const j: Judged = { seg, index, text, cwd, ctx, asked: new Set() };
    for (const c of DIRECTORY_CHECKS) {
      const why = c.allowedOnly && !allowed ? 'runs only where an allow rule matched' : c.skip?.(j);
      if (why !== undefined) {
        skipped(c.name, why, cwd);
        continue;
      }
      const found = c.check(j, expansion.seg);
      if (found === undefined) {
        passed(c.name, cwd);
        continue;
      }
      j.asked.add(c.name);
      ask(c.name, found, cwd);
    }
  }
  if (!allowed || rule.allowRedirects) {
    skipped('redirect', allowed ? 'the allow rule allows redirects' : 'runs only where an allow rule matched');
  } else {
    const write = seg.redirects.find((r) => writesFile(r, seg.redirects));
    if (write) ask('redirect', { kind: 'redirect', reason: REASON.redirect(text, index, write.target ?? '…', rule.match) });
    else passed('redirect');
  }

  let best: Outcome | undefined;
  for (const o of outcomes) if (better(o, best)) best = o;
  return { outcome: best ?? outcomes[0], rule, ...(trace ? { trace } : {}) };
}

/**
 * The decision for an analysed command under the rule layers in force (a plain rule list is one
 * layer without a name). Never throws: an internal error is a prompt that says so.
 */
export function decide(analysis: ShellAnalysis, rules: readonly RuleLayer[] | readonly PolicyRule[], ctx: PolicyContext): PolicyDecision {
  const layers = toLayers(rules);
  let decision: PolicyDecision;
  try {
    decision = decideChecked(analysis, layers, ctx);
  } catch (err) {
    const why = err instanceof MatchBudgetError ? err.message : `the decision failed (${err instanceof Error ? err.message : String(err)})`;
    decision = { decision: 'prompt', rule: null, kind: 'uncertain', reason: REASON.uncertain(why), segments: [], uncertain: true };
  }
  return withUnreadableLayers(decision, layers);
}

/** A layer that could not be read (the managed file): every command asks at least, and says why. */
function withUnreadableLayers(decision: PolicyDecision, layers: readonly LooseLayer[]): PolicyDecision {
  const why = unreadableLayersReason(layers);
  if (why === undefined || decision.decision === 'deny') return decision;
  if (decision.decision === 'prompt') return { ...decision, reason: `${decision.reason}; ${why}` };
  const asked: PolicyDecision = { ...decision, decision: 'prompt', rule: null, kind: 'unreadable_rules', reason: why };
  delete asked.layer;
  delete asked.layerSource;
  return asked;
}

function decideChecked(analysis: ShellAnalysis, layers: readonly LooseLayer[], ctx: PolicyContext): PolicyDecision {
  const usable = new RuleLookup(new LayeredRules(layers));
  const segments: SegmentDecision[] = [];
  const candidates: Outcome[] = [];
  const allowMatches: string[] = [];

  const expanded = expandInCwds(analysis.segments, ctx.cwd, ctx.expander);
  analysis.segments.forEach((seg, k) => {
    const { outcome, rule, trace } = decideSegment(seg, k + 1, analysis.segments, usable, ctx, expanded[k]);
    const segment: SegmentDecision = { segment: seg, decision: outcome.decision, rule, kind: outcome.kind, reason: outcome.reason };
    if (trace) segment.trace = trace;
    const origin = rule ? usable.layerOf(rule) : undefined;
    if (origin?.layer !== undefined) {
      segment.layer = origin.layer;
      segment.layerSource = origin.source;
    }
    segments.push(segment);
    candidates.push(outcome);
    if (outcome.decision === 'allow' && rule && !allowMatches.includes(rule.match)) allowMatches.push(rule.match);
  });

  const lineTrace: CheckTrace[] | undefined = ctx.trace ? [] : undefined;
  const raise = (check: CheckCode, c: Outcome): void => {
    candidates.push(c);
    lineTrace?.push({ check, result: c.decision === 'deny' ? 'deny' : 'ask', detail: c.reason });
  };
  const whole = normalizeCommandText(analysis.command);
  const wholeRule = usable.first(whole);
  if (wholeRule && wholeRule.approval !== 'allow') {
    raise('line_rule', { decision: wholeRule.approval, kind: 'rule', rule: wholeRule, reason: REASON.commandRule(whole, wholeRule.approval, wholeRule.match) });
  } else lineTrace?.push({ check: 'line_rule', result: 'pass' });
  if (analysis.construct !== undefined) {
    raise('shell_construct', { decision: 'prompt', kind: 'uncertain', rule: null, reason: REASON.construct(analysis.construct) });
  } else lineTrace?.push({ check: 'shell_construct', result: 'pass' });
  if (analysis.uncertain || analysis.segments.length === 0) {
    raise('analysis', { decision: 'prompt', kind: 'uncertain', rule: null, reason: REASON.uncertain(analysis.uncertainReason ?? 'no command found') });
  } else lineTrace?.push({ check: 'analysis', result: 'pass' });
  const invisible = findInvisible(analysis.command);
  if (invisible) raise('invisible_characters', { decision: 'prompt', kind: 'uncertain', rule: null, reason: INVISIBLE_REASON(invisible.codePoint, invisible.offset) });
  else lineTrace?.push({ check: 'invisible_characters', result: 'pass' });

  let best: Outcome | undefined;
  for (const c of candidates) if (better(c, best)) best = c;
  const chosen = best as Outcome; // never empty: no segments means the uncertain candidate
  if (chosen.decision === 'allow' && analysis.segments.length > 1) chosen.reason = REASON.allowEvery(allowMatches);

  const decision: PolicyDecision = {
    decision: chosen.decision,
    rule: chosen.kind === 'rule' ? chosen.rule : null,
    kind: chosen.kind,
    reason: chosen.reason,
    segments,
    uncertain: analysis.uncertain,
  };
  if (chosen.segmentIndex !== undefined) decision.segmentIndex = chosen.segmentIndex;
  if (usable.restrictive.size) decision.restrictive = [...usable.restrictive.values()];
  if (lineTrace) decision.trace = lineTrace;
  const origin = decision.rule ? usable.layerOf(decision.rule) : undefined;
  if (origin?.layer !== undefined) {
    decision.layer = origin.layer;
    decision.layerSource = origin.source;
  }
  return decision;
}
