// What Manage Rules warns about in the rules in force (issue 31): an allow rule that a deny or prompt
// rule always overrides (deny beats prompt beats allow in any order, so the allow does nothing),
// a rule that can never match (its first word is not a command word: the policy matches the
// program's name, never a path, an option or an assignment), and duplicates. Tests assert these texts.
import type { PolicyRule, RuleLayerName } from '../policyContracts';
import { exactPlainText, parseExactWords } from './exactRule';
import { globExamples, globMatches, normalizeCommandText } from './ruleGlob';
import { layerLabel } from './ruleLayerLabel';

export const CONFLICT_MESSAGES = {
  overridden: (by: PolicyRule, where: string) =>
    `never applies: the ${by.approval === 'deny' ? 'deny' : 'ask'} rule \`${by.match}\` (${where}) matches every command it matches, and wins`,
  notCommand: (head: string, why: string) => `can never match: \`${head}\` is not a command word (${why})`,
  duplicate: (position: number, where: string) => `duplicate of rule ${position} in ${where}`,
} as const;

/** A layer's rules as Manage Rules has them: `rules[i]` undefined for an invalid entry (skipped). */
export interface ConflictLayer {
  layer: RuleLayerName;
  source?: string;
  rules: Array<PolicyRule | undefined>;
}

/** What fills `*` when an allow rule's examples are made (as the proposal check does). */
const FILLS: readonly string[] = ['', 'x', '-a3', ' x', ' -f /tmp/x', '/'];

function firstWord(rule: PolicyRule): string | undefined {
  if (rule.exact === true) {
    const parsed = parseExactWords(rule.match);
    return parsed.ok ? parsed.words[0] : undefined;
  }
  const p = normalizeCommandText(rule.match);
  const head = p.split(' ')[0];
  // A head with glob syntax may be a command word: nothing to say.
  return /[\\*?[\]{}]/.test(head) ? undefined : head;
}

/** Why an allow rule's first word can never be a program's name, or undefined. */
function notCommandWord(head: string): string | undefined {
  if (head.includes('/')) return `rules see the program's name, \`${head.slice(head.lastIndexOf('/') + 1) || head}\`, not its path`;
  if (head.startsWith('-')) return 'it is an option';
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(head)) return 'an assignment before a command is not part of the text rules see';
  return undefined;
}

/** The texts a rule was written for (a glob's examples, an exact rule's command). */
function examples(rule: PolicyRule): string[] {
  if (rule.exact === true) {
    const plain = exactPlainText(rule.match);
    return plain === undefined ? [] : [plain];
  }
  return globExamples(rule.match, FILLS);
}

function covers(rule: PolicyRule, text: string): boolean {
  return rule.exact === true ? exactPlainText(rule.match) === text : globMatches(rule.match, text);
}

/**
 * The warnings for each rule: `result[l][i]` lists those of `layers[l].rules[i]` (empty when none).
 * Only allow rules can be overridden and only allow rules are said never to match: deny and prompt
 * rules also see a command as written (a path, its assignments), so they may still apply.
 */
export function ruleConflicts(layers: readonly ConflictLayer[]): string[][][] {
  const restrictive: Array<{ rule: PolicyRule; where: string }> = [];
  for (const l of layers) {
    for (const r of l.rules) if (r && r.approval !== 'allow') restrictive.push({ rule: r, where: layerLabel(l.layer, l.source) });
  }
  const seen = new Map<string, string>();
  return layers.map((l) => {
    const where = layerLabel(l.layer, l.source);
    return l.rules.map((rule, i) => {
      if (!rule) return [];
      const out: string[] = [];
      const key = `${rule.approval}\0${rule.exact === true ? 'exact' : 'glob'}\0${normalizeCommandText(rule.match)}`;
      const first = seen.get(key);
      if (first !== undefined) out.push(first);
      else seen.set(key, CONFLICT_MESSAGES.duplicate(i + 1, where));
      if (rule.approval !== 'allow') return out;
      const head = firstWord(rule);
      const why = head === undefined ? undefined : notCommandWord(head);
      if (head !== undefined && why !== undefined) {
        out.push(CONFLICT_MESSAGES.notCommand(head, why));
        return out;
      }
      const texts = examples(rule);
      if (texts.length) {
        const by = restrictive.find((r) => texts.every((t) => covers(r.rule, t)));
        if (by) out.push(CONFLICT_MESSAGES.overridden(by.rule, by.where));
      }
      return out;
    });
  });
}
