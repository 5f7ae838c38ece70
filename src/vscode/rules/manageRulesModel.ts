// What the Manage Rules view shows and does, without VS Code: each layer's rules as rows (invalid
// entries of a settings array shown with why they are ignored, never hidden), the edits a person can
// make in the user and workspace layers (add, remove, move) applied to that layer's own array, and the
// result of trying a command in plain words.
import type { PolicyDecision, PolicyRule, RuleLayerName, Verdict } from '../../core/policy/policyContracts';
import { parsePolicyRules, RULE_MESSAGES } from '../../core/policy/policyRulesSchema';
import { layerLabel } from '../../core/policy/ruleLayerLabel';

/** The layers a person edits here; the others are read-only (built-in, managed) or edited in their folder. */
export type EditableLayer = 'user' | 'workspace';

export interface RuleRow {
  /** Position in the layer's own array (the settings value, invalid entries included). */
  index: number;
  match: string;
  approval: string;
  allowRedirects: boolean;
  /** Why this entry is ignored, when it is invalid. */
  problem?: string;
}

export interface LayerView {
  layer: RuleLayerName;
  /** `User settings`, `Managed rules`… */
  title: string;
  /** Where the rules are read from, for people. */
  source: string;
  editable: boolean;
  /** Why the layer is empty, read-only or ignored (untrusted workspace, no folder open). */
  note?: string;
  rules: RuleRow[];
}

/** The order the view lists the layers in (the order the policy reads them). */
export const LAYER_ORDER: readonly RuleLayerName[] = ['builtin', 'managed', 'user', 'workspace', 'folder', 'file'];

export function layerTitle(layer: RuleLayerName, source?: string): string {
  const label = layerLabel(layer, source);
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** Rows of valid rules (a layer someone else read and checked). */
export function rowsOfRules(rules: readonly PolicyRule[]): RuleRow[] {
  return rules.map((r, index) => ({ index, match: r.match, approval: r.approval, allowRedirects: r.allowRedirects === true }));
}

/** Rows of a settings value as written: each entry, the invalid ones with their problem. */
export function rowsOfRaw(raw: unknown): { rows: RuleRow[]; problem?: string } {
  if (raw === undefined || raw === null) return { rows: [] };
  if (!Array.isArray(raw)) return { rows: [], problem: `agentBash.patterns: ${RULE_MESSAGES.notArray}` };
  const rows = raw.map((entry: unknown, index): RuleRow => {
    const parsed = parsePolicyRules([entry]);
    if (parsed.ok) {
      const r = parsed.rules[0] as PolicyRule;
      return { index, match: r.match, approval: r.approval, allowRedirects: r.allowRedirects === true };
    }
    const e = (entry && typeof entry === 'object' ? entry : {}) as Record<string, unknown>;
    return {
      index,
      match: typeof e.match === 'string' ? e.match : String(JSON.stringify(entry)),
      approval: typeof e.approval === 'string' ? e.approval : '?',
      allowRedirects: e.allowRedirects === true,
      problem: `ignored: ${parsed.message.replace(/^\[0\](?:\.|: )/, '')}`,
    };
  });
  return { rows };
}

export type RuleEdit =
  | { op: 'add'; match: string; approval: string; allowRedirects?: boolean }
  /** `match`: the rule the person saw at `index`; a different one there means the list changed meanwhile. */
  | { op: 'remove'; index: number; match: string }
  | { op: 'move'; index: number; match: string; to: number };

export type EditResult = { ok: true; value: unknown[] | undefined; summary: string } | { ok: false; message: string };

/** The layer's new array after one edit; undefined when it ends up empty (the setting is removed). */
export function applyRuleEdit(raw: unknown, edit: RuleEdit, where: string): EditResult {
  // The edit comes from the page: its shape is checked here, not trusted.
  if (typeof edit !== 'object' || (edit as unknown) === null) return { ok: false, message: 'Unknown change; nothing was changed.' };
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) {
    return { ok: false, message: `The rules in ${where} are not a list; fix agentBash.patterns there first.` };
  }
  const list: unknown[] = Array.isArray(raw) ? [...(raw as unknown[])] : [];
  const done = (summary: string): EditResult => ({ ok: true, value: list.length ? list : undefined, summary });
  if (edit.op === 'add') {
    const rule: Record<string, unknown> = { match: typeof edit.match === 'string' ? edit.match.trim() : edit.match, approval: edit.approval };
    if (edit.allowRedirects === true) rule.allowRedirects = true;
    const parsed = parsePolicyRules([rule]);
    if (!parsed.ok) return { ok: false, message: `Not added: ${parsed.message.replace(/^\[0\](?:\.|: )/, '')}.` };
    const added = parsed.rules[0] as PolicyRule;
    if (rowsOfRaw(list).rows.some((r) => !r.problem && r.match === added.match && r.approval === added.approval)) {
      return { ok: false, message: `Not added: ${added.approval} \`${added.match}\` is already in ${where}.` };
    }
    list.push(added);
    return done(`Added ${added.approval} \`${added.match}\` at the end of ${where}.`);
  }
  const op: string = edit.op;
  if (op !== 'remove' && op !== 'move') return { ok: false, message: 'Unknown change; nothing was changed.' };
  const at = checkIndex(list, edit.index, edit.match, where);
  if (typeof at === 'string') return { ok: false, message: at };
  if (edit.op === 'remove') {
    list.splice(at, 1);
    return done(`Removed \`${edit.match}\` from ${where}.`);
  }
  if (!Number.isInteger(edit.to) || edit.to < 0 || edit.to >= list.length) {
    return { ok: false, message: `\`${edit.match}\` cannot move there: ${where} has ${list.length} rule${list.length === 1 ? '' : 's'}.` };
  }
  const [moved] = list.splice(at, 1);
  list.splice(edit.to, 0, moved);
  return done(`Moved \`${edit.match}\` to position ${edit.to + 1} of ${where}.`);
}

function checkIndex(list: readonly unknown[], index: unknown, match: string, where: string): number | string {
  const changed = `The rules in ${where} changed meanwhile; nothing was changed. The list now shows them as they are.`;
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= list.length) return changed;
  const row = rowsOfRaw(list).rows[index] as RuleRow | undefined;
  return row?.match === match ? index : changed;
}

export interface TryView {
  command: string;
  verdict: Verdict;
  /** "Runs without asking.", "Asks first.", "Refused: it does not run." */
  headline: string;
  /** The policy's reason, then where the deciding rule comes from. */
  because: string;
  segments: Array<{ text: string; verdict: Verdict; rule?: string }>;
}

const HEADLINES: Readonly<Record<Verdict, string>> = {
  allow: 'Runs without asking.',
  prompt: 'Asks you first.',
  deny: 'Refused: it does not run.',
};

/** The explain result for people (nothing runs). */
export function tryView(command: string, d: PolicyDecision): TryView {
  const origin = d.rule && d.layer ? ` Rule \`${d.rule.match}\` is from ${layerLabel(d.layer, d.layerSource)}.` : '';
  const reason = d.reason.trim();
  return {
    command,
    verdict: d.decision,
    headline: HEADLINES[d.decision],
    because: `${reason}${/[.!?]$/.test(reason) || !reason ? '' : '.'}${origin}`.trim(),
    segments: d.segments.map((s) => ({ text: s.segment.text, verdict: s.decision, ...(s.rule ? { rule: s.rule.match } : {}) })),
  };
}
