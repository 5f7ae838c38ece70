// How a person reads where a rule comes from: `built-in list`, `user settings`, `workspace settings`,
// `folder settings`, `managed rules (/etc/agent-bash/rules.json)`, or a rules file's path. Shown by the
// approval dialog, Explain Policy Decision, the History view and Manage Rules.
import type { MatchedRule, RuleLayerName } from '../policyContracts';

const GENERIC: Readonly<Record<Exclude<RuleLayerName, 'file'>, string>> = {
  builtin: 'built-in list',
  managed: 'managed rules',
  user: 'user settings',
  workspace: 'workspace settings',
  folder: 'folder settings',
};

/**
 * The layer in plain words. `source` (RuleLayer.source) adds what only it knows: the managed file's
 * path, the folder's name, the rules file. A source that already starts with the generic name
 * (`folder settings (api)`) is used as it is.
 */
export function layerLabel(layer: RuleLayerName, source?: string): string {
  const from = source?.trim();
  // `file`, or a name from stored history this version does not know: the source is all there is.
  if (!Object.hasOwn(GENERIC, layer)) return from || 'a rules file';
  const generic = GENERIC[layer as keyof typeof GENERIC];
  if (!from || layer === 'builtin' || layer === 'user' || layer === 'workspace') return generic;
  return from.startsWith(generic) ? from : `${generic} (${from})`;
}

/** "ask rule `git push *` from user settings": a matched deny or prompt rule as History and the Try box name it. */
export function matchedRuleName(m: Pick<MatchedRule, 'rule' | 'layer' | 'layerSource'>): string {
  const what = `${m.rule.approval === 'prompt' ? 'ask' : m.rule.approval} rule \`${m.rule.match}\`${m.rule.exact === true ? ' (exact)' : ''}`;
  return m.layer ? `${what} from ${layerLabel(m.layer, m.layerSource)}` : what;
}
