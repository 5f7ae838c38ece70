// The rules in force are layers (policyContracts.ts RuleLayer): the built-in read-only list, the
// managed file, user, workspace and workspace-folder settings, `--rules` files. A text is looked up
// in every rule of every layer, and deny beats prompt beats allow within a layer and across layers,
// whatever order the rules and layers come in: a deny written after an allow still denies, and
// adding a layer or an allow rule anywhere can never relax a deny or prompt another rule gives.
// Among rules of the same verdict, the one reported is the first in the first layer of TIE_ORDER.
import type { PolicyRule, RuleLayer, RuleLayerName } from '../policyContracts';
import { compileRules, type CompiledRules, type MatchBudget } from './ruleGlob';

/** A layer as the lookup takes it: a plain rule list (tests, old callers) is a layer without a name. */
export interface LooseLayer extends Omit<RuleLayer, 'layer'> {
  layer?: RuleLayerName;
}

export interface LayeredMatch {
  rule: PolicyRule;
  layer: LooseLayer;
}

/** A lookup's result: the deciding match, and every deny and prompt rule that matched. */
export interface LayeredLookup {
  decided: LayeredMatch | null;
  /** Every deny and prompt match, denies first, each in TIE_ORDER then list order. */
  restrictive: LayeredMatch[];
}

const isRestrictive = (r: PolicyRule): boolean => r.approval !== 'allow';
const isAllow = (r: PolicyRule): boolean => r.approval === 'allow';

/**
 * Which layer names itself when several give the same verdict: the managed file first (an
 * administrator's deny is reported as theirs), then the most specific settings scope (a user's own
 * allow rule with `allowRedirects` is the one that applies, not the built-in list's plain one).
 */
const TIE_ORDER: Readonly<Record<RuleLayerName, number>> = { managed: 0, folder: 1, workspace: 2, user: 3, file: 4, builtin: 5 };

function tieRank(layer: LooseLayer): number {
  return layer.layer === undefined ? TIE_ORDER.file : TIE_ORDER[layer.layer];
}

function isLayerList(rules: readonly LooseLayer[] | readonly PolicyRule[]): rules is readonly LooseLayer[] {
  const first = rules[0] as LooseLayer | PolicyRule | undefined;
  return first !== undefined && 'rules' in first && Array.isArray(first.rules);
}

/** Layers from what `decide` was given: layers as they are, a plain rule list as one unnamed layer. */
export function toLayers(rules: readonly LooseLayer[] | readonly PolicyRule[]): LooseLayer[] {
  if (rules.length === 0) return [];
  if (isLayerList(rules)) return [...rules];
  return [{ source: 'rules', rules: rules as PolicyRule[] }];
}

/** Why every command asks, when a layer could not be read; undefined when all could. */
export function unreadableLayersReason(layers: readonly LooseLayer[]): string | undefined {
  const problems = layers.flatMap((l) => (l.problem === undefined ? [] : [l.problem]));
  return problems.length ? problems.join('; ') : undefined;
}

/** The most severe matching rule of all layers; `lookup` also gives every deny and prompt that matched. */
export class LayeredRules {
  private readonly ordered: LooseLayer[];
  /** Each layer's compiled rules (compiled once per decision; compileRules memoises per list). */
  private readonly compiled: Array<CompiledRules<PolicyRule>>;
  private readonly origin = new Map<PolicyRule, LooseLayer>();

  constructor(layers: readonly LooseLayer[] | readonly PolicyRule[]) {
    const list = toLayers(layers);
    // A stable sort: layers of the same name (several `--rules` files) keep their order.
    this.ordered = list.map((layer, i) => ({ layer, i })).sort((a, b) => tieRank(a.layer) - tieRank(b.layer) || a.i - b.i).map((x) => x.layer);
    this.compiled = this.ordered.map((layer) => compileRules(layer.rules));
  }

  /**
   * The deciding rule for `text` and its layer, or null when no rule matches: a deny if any
   * matches, else a prompt, else an allow. `exactText`: the command's canonical words, which exact
   * rules are compared with (exactRule.ts); without it they match nothing.
   */
  first(text: string, budget?: MatchBudget, exactText?: string): LayeredMatch | null {
    return this.lookup(text, budget, exactText).decided;
  }

  /** The deciding match and every deny and prompt rule that matched `text`. */
  lookup(text: string, budget?: MatchBudget, exactText?: string): LayeredLookup {
    const denies: LayeredMatch[] = [];
    const prompts: LayeredMatch[] = [];
    for (const [i, layer] of this.ordered.entries()) {
      if (layer.rules.length === 0) continue;
      for (const rule of this.compiled[i].all(text, budget, exactText, isRestrictive)) {
        (rule.approval === 'deny' ? denies : prompts).push({ rule, layer });
      }
    }
    const restrictive = [...denies, ...prompts];
    let decided: LayeredMatch | null = restrictive.length ? restrictive[0] : null;
    if (!decided) {
      for (const [i, layer] of this.ordered.entries()) {
        if (layer.rules.length === 0) continue;
        const rule = this.compiled[i].first(text, budget, exactText, isAllow);
        if (rule) {
          decided = { rule, layer };
          break;
        }
      }
    }
    for (const m of decided ? [decided, ...restrictive] : restrictive) if (!this.origin.has(m.rule)) this.origin.set(m.rule, m.layer);
    return { decided, restrictive };
  }

  /** The layer a rule returned by `first` or `lookup` came from. */
  layerOf(rule: PolicyRule): LooseLayer | undefined {
    return this.origin.get(rule);
  }

  /** Every deny and prompt rule of every layer, with its layer (for checking proposed rules). */
  restrictive(): LayeredMatch[] {
    return this.ordered.flatMap((layer) => layer.rules.filter((r) => r.approval !== 'allow').map((rule) => ({ rule, layer })));
  }
}

