// What the Manage Rules view shows and does, without VS Code: each layer's rules as rows (invalid
// entries of a settings array shown with why they are ignored, never hidden), the edits a person can
// make in the user and workspace layers (add, remove, move) applied to that layer's own array, and the
// result of trying a command in plain words.
import { withoutSegments } from '../../core/humanMessages';
import type { PolicyDecision, PolicyRule, RuleLayerName, Verdict } from '../../core/policy/policyContracts';
import { parsePolicyRules, RULE_MESSAGES } from '../../core/policy/rules/policyRulesSchema';
import { layerLabel, matchedRuleName } from '../../core/policy/rules/ruleLayerLabel';
import { ruleConflicts } from '../../core/policy/rules/ruleConflicts';

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
  /** Set when the rule is exact (one command's words, no wildcards). */
  exact?: true;
  /** What is wrong with the rule in force (ruleConflicts.ts): overridden, never matches, duplicate. */
  conflicts?: string[];
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
  return rules.map((r, index) => ({ index, match: r.match, approval: r.approval, allowRedirects: r.allowRedirects === true, ...(r.exact === true ? { exact: true as const } : {}) }));
}

/** The rule a valid row stands for. */
function ruleOfRow(row: RuleRow): PolicyRule | undefined {
  if (row.problem !== undefined) return undefined;
  return { match: row.match, approval: row.approval as Verdict, ...(row.exact ? { exact: true } : {}) };
}

/**
 * The views with each rule's conflicts (ruleConflicts.ts) set on its row. A layer the policy ignores
 * (an untrusted workspace: `ignored`) is left out of the check and gets no warnings.
 */
export function withConflicts(views: LayerView[], ignored: (v: LayerView) => boolean = () => false): LayerView[] {
  const checked = views.filter((v) => !ignored(v));
  // The title is the layer's label capitalised (layerTitle): lower-cased back, layerLabel keeps it as it is.
  const found = ruleConflicts(checked.map((v) => ({ layer: v.layer, source: v.title.charAt(0).toLowerCase() + v.title.slice(1), rules: v.rules.map(ruleOfRow) })));
  checked.forEach((v, l) =>
    v.rules.forEach((row, i) => {
      if (found[l][i].length) row.conflicts = found[l][i];
    }),
  );
  return views;
}

/** Rows of a settings value as written: each entry, the invalid ones with their problem. */
export function rowsOfRaw(raw: unknown): { rows: RuleRow[]; problem?: string } {
  if (raw === undefined || raw === null) return { rows: [] };
  if (!Array.isArray(raw)) return { rows: [], problem: `agentBash.patterns: ${RULE_MESSAGES.notArray}` };
  const rows = raw.map((entry: unknown, index): RuleRow => {
    const parsed = parsePolicyRules([entry]);
    if (parsed.ok) {
      const r = parsed.rules[0] as PolicyRule;
      return { index, match: r.match, approval: r.approval, allowRedirects: r.allowRedirects === true, ...(r.exact === true ? { exact: true as const } : {}) };
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
  | { op: 'add'; match: string; approval: string; allowRedirects?: boolean; exact?: boolean }
  /** Puts back a removed entry at its old position (Undo of a remove); `entry` is what the remove returned. */
  | { op: 'restore'; index: number; entry: unknown }
  /** `match`: the rule the person saw at `index`; a different one there means the list changed meanwhile. */
  | { op: 'remove'; index: number; match: string }
  | { op: 'move'; index: number; match: string; to: number };

export type EditResult =
  /** `removed`: after a remove, the entry as it was and where, for Undo. */
  | { ok: true; value: unknown[] | undefined; summary: string; removed?: { index: number; entry: unknown } }
  | { ok: false; message: string };

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
    if (edit.exact === true) rule.exact = true;
    const parsed = parsePolicyRules([rule]);
    if (!parsed.ok) return { ok: false, message: `Not added: ${parsed.message.replace(/^\[0\](?:\.|: )/, '')}.` };
    const added = parsed.rules[0] as PolicyRule;
    if (rowsOfRaw(list).rows.some((r) => !r.problem && r.match === added.match && r.approval === added.approval && (r.exact === true) === (added.exact === true))) {
      return { ok: false, message: `Not added: ${added.approval} \`${added.match}\` is already in ${where}.` };
    }
    list.push(added);
    return done(`Added ${added.approval} \`${added.match}\` at the end of ${where}.`);
  }
  if (edit.op === 'restore') {
    const parsed = parsePolicyRules([edit.entry]);
    if (!parsed.ok || !Number.isInteger(edit.index) || edit.index < 0) return { ok: false, message: 'Nothing to undo.' };
    const restored = parsed.rules[0] as PolicyRule;
    list.splice(Math.min(edit.index, list.length), 0, edit.entry);
    return done(`Put \`${restored.match}\` back at position ${Math.min(edit.index, list.length - 1) + 1} of ${where}.`);
  }
  const op: string = edit.op;
  if (op !== 'remove' && op !== 'move') return { ok: false, message: 'Unknown change; nothing was changed.' };
  const at = checkIndex(list, edit.index, edit.match, where);
  if (typeof at === 'string') return { ok: false, message: at };
  if (edit.op === 'remove') {
    const [entry] = list.splice(at, 1);
    return { ...(done(`Removed \`${edit.match}\` from ${where}.`) as { ok: true; value: unknown[] | undefined; summary: string }), removed: { index: at, entry } };
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
  /**
   * Every deny and ask rule that matched, the deciding one first and marked: "deny rule `touch
   * secret*` from user settings decided (matched `touch secret.txt`)"; absent when none matched.
   */
  matched?: string[];
}

const HEADLINES: Readonly<Record<Verdict, string>> = {
  allow: 'Runs without asking.',
  prompt: 'Asks you first.',
  deny: 'Refused: it does not run.',
};

/** The explain result for people (nothing runs). */
export function tryView(command: string, d: PolicyDecision): TryView {
  const origin = d.rule && d.layer ? ` Rule \`${d.rule.match}\` is from ${layerLabel(d.layer, d.layerSource)}.` : '';
  // People read no "in segment 1": the part the reason names is quoted in it already.
  const reason = withoutSegments(d.reason.trim());
  return {
    command,
    verdict: d.decision,
    headline: HEADLINES[d.decision],
    because: `${reason}${/[.!?]$/.test(reason) || !reason ? '' : '.'}${origin}`.trim(),
    segments: d.segments.map((s) => ({ text: s.segment.text, verdict: s.decision, ...(s.rule ? { rule: s.rule.match } : {}) })),
    ...(d.restrictive?.length ? { matched: matchedLines(d) } : {}),
  };
}

/** The deny and ask rules that matched, the one that decided first. */
function matchedLines(d: PolicyDecision): string[] {
  const all = [...(d.restrictive ?? [])].sort((a, b) => Number(b.rule === d.rule) - Number(a.rule === d.rule));
  return all.map((m) => `${matchedRuleName(m)}${m.rule === d.rule ? ' decided' : ''} (matched \`${m.text}\`)`);
}
