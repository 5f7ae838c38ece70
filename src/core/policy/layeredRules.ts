// The rules in force are layers (policyContracts.ts RuleLayer): the built-in read-only list, the
// managed file, user, workspace and workspace-folder settings, `--rules` files. A text is looked up
// in every layer: within a layer the first matching rule is that layer's verdict (how a person
// writes an exception in front of a broader deny); across layers the most severe verdict wins,
// deny over prompt over allow, whatever order the layers come in. Adding a layer, or an allow rule
// at the end of one, can therefore never relax a deny or prompt that another rule already gives.
import type { PolicyRule, RuleLayer, RuleLayerName, Verdict } from './policyContracts';
import { compileRules, type CompiledRules, type MatchBudget } from './ruleGlob';

/** A layer as the lookup takes it: a plain rule list (tests, old callers) is a layer without a name. */
export interface LooseLayer extends Omit<RuleLayer, 'layer'> {
  layer?: RuleLayerName;
}

export interface LayeredMatch {
  rule: PolicyRule;
  layer: LooseLayer;
}

const SEVERITY: Readonly<Record<Verdict, number>> = { allow: 0, prompt: 1, deny: 2 };

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

/** First-match per layer, most severe across layers. */
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

  /** The deciding rule for `text` and its layer, or null when no layer has a matching rule. */
  first(text: string, budget?: MatchBudget): LayeredMatch | null {
    let best: LayeredMatch | null = null;
    for (const [i, layer] of this.ordered.entries()) {
      if (layer.rules.length === 0) continue;
      const rule = this.compiled[i].first(text, budget);
      if (!rule || (best && SEVERITY[rule.approval] <= SEVERITY[best.rule.approval])) continue;
      best = { rule, layer };
      if (rule.approval === 'deny') break;
    }
    if (best && !this.origin.has(best.rule)) this.origin.set(best.rule, best.layer);
    return best;
  }

  /** The layer a rule returned by `first` came from. */
  layerOf(rule: PolicyRule): LooseLayer | undefined {
    return this.origin.get(rule);
  }

  /** Every deny and prompt rule of every layer, with its layer (for checking proposed rules). */
  restrictive(): LayeredMatch[] {
    return this.ordered.flatMap((layer) => layer.rules.filter((r) => r.approval !== 'allow').map((rule) => ({ rule, layer })));
  }
}

