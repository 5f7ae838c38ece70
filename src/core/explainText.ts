// Explain Policy Decision in plain words: the decision as one sentence ("Agent Bash would ask you,
// because no rule covers `ls -la`."), each command of the line with what decided it and the rule's
// layer, and what the OS sandbox would confine. The VS Code command renders it as a read-only
// Markdown document (vscode/commands/explainDocument.ts); the CLI's `explain` prints the sentence.
// Tests assert these texts; change them here only.
import type { CheckTrace, PolicyDecision, PolicyRule, RuleLayerName, SegmentDecision, Verdict } from './contracts';
import { code } from './humanMessages';
import { runsWithoutAsking, SANDBOX_OFF_REASON } from './policy/policyGate';
import { layerLabel } from './policy/rules/ruleLayerLabel';
import { readOnlyLine } from './policy/checks/readerClass';
import type { ReadOnlyCapability } from './pipeline';

/** How a person names a rule's approval: `allow rule`, `ask rule`, `deny rule`. */
const RULE_NAME: Readonly<Record<Verdict, string>> = { allow: 'allow rule', prompt: 'ask rule', deny: 'deny rule' };

/** What the sandbox settings say, and how this call would run (sandboxRuntime's levels). */
export interface ExplainSandbox {
  /** `agentBash.sandbox.enabled`. */
  mode: 'auto' | 'on' | 'off';
  /** How the command would run; `{ error }` when the sandbox is on but cannot start (nothing would run). */
  level: 'sandboxed' | 'contained' | 'plain' | { error: string };
  autoApprove: boolean;
  allowWrite: readonly string[];
  denyRead: readonly string[];
  denyWrite: readonly string[];
  allowedDomains: readonly string[];
  gitAllowWrite?: boolean;
  /** `agentBash.sandbox.caches.shareWithHost`. */
  sharedCaches?: boolean;
  /** Whether the kernel holds an auto-approved read to reading here (readOnlyFenceLine). */
  readOnly?: ReadOnlyCapability;
}

/**
 * What Explain says of a line that would run without asking because every program in it reads
 * (readerClass.ts): it runs read-only, offline and exec-limited, or where and why that is not enforced.
 */
export function readOnlyFenceLine(capability: ReadOnlyCapability): string {
  return capability.enforced
    ? 'Read-only: it would run without asking because every program in it only reads, so the kernel holds it to that: no file changed outside a scratch folder of its own, no network, no program the line does not name, nothing read outside the workspace and the system.'
    : `Read-only not enforced here (${capability.why ?? 'unknown reason'}): it would run without asking on the policy's reading of the line alone.`;
}

/** "in user settings", "in the built-in list", "in managed rules (/etc/agent-bash/rules.json)". */
export function inLayer(layer: RuleLayerName | undefined, source: string | undefined): string {
  if (layer === undefined) return '';
  return layer === 'builtin' ? ' in the built-in list' : ` in ${layerLabel(layer, source)}`;
}

/** "the allow rule `git status*` in user settings". */
function ruleRef(rule: PolicyRule, layer: RuleLayerName | undefined, source: string | undefined): string {
  return `the ${RULE_NAME[rule.approval]} \`${rule.match}\`${inLayer(layer, source)}`;
}

/**
 * A policy reason (policyReasons.ts) without its jargon: "`x` in segment 2 is opaque: …" becomes
 * "`x` runs code Agent Bash cannot see: …"; with `subject: 'it'` the command's text becomes "it".
 */
export function plainReason(reason: string, subject: 'keep' | 'it' = 'keep'): string {
  let text = reason.replace(/^(`.*?`)(?: in segment \d+)? /, (_m, quoted: string) => `${subject === 'it' ? 'it' : quoted} `);
  text = text
    .replace(/ is opaque: /, ' runs code Agent Bash cannot see: ')
    .replace(/; allow rule (`.*`) does not set allowRedirects$/, ', which the allow rule $1 does not cover (it has no `allowRedirects`)')
    .replace(/ that cannot be resolved statically /, ' Agent Bash cannot work out before it runs ')
    .replace(/ matches a critical pattern /, ' matches a dangerous pattern ');
  return text;
}

/** The command a decision is about, as the person reads it: the deciding part's text, or the line. */
function decidingText(command: string, d: PolicyDecision): string {
  const seg = d.segmentIndex !== undefined ? d.segments[d.segmentIndex - 1] : undefined;
  return d.segments.length <= 1 ? command : seg?.segment.source || seg?.segment.text || command;
}

/** Why, after "because ": the deciding rule, no rule, or the policy's reason in plain words. */
function because(command: string, d: PolicyDecision): string {
  const what = code(decidingText(command, d));
  if (d.kind === 'rule' && d.rule) {
    const rule = ruleRef(d.rule, d.layer, d.layerSource);
    if (d.decision === 'allow') {
      return d.segments.length > 1 ? `allow rules cover each of its ${d.segments.length} commands` : `${rule} covers ${what}`;
    }
    return `${rule} matches ${what}`;
  }
  if (d.kind === 'default') return `no rule covers ${what}`;
  if (d.reason === SANDBOX_OFF_REASON) return `${what} would run outside the OS sandbox (its caller asked for that)`;
  return plainReason(d.reason);
}

/**
 * The decision as one sentence: "Agent Bash would ask you, because no rule covers `ls -la`.",
 * "Agent Bash would run it without asking, because the allow rule `git status*` in user settings
 * covers `git status`.", "Agent Bash would refuse it, because the deny rule `rm -rf*` in workspace
 * settings matches `rm -rf /`." `sandbox` (absent: not known) adds whether a sandboxed run would skip the question.
 */
export function decisionSentence(command: string, d: PolicyDecision, sandbox?: Pick<ExplainSandbox, 'level' | 'autoApprove'>): string {
  const why = because(command, d);
  if (d.decision === 'deny') return `Agent Bash would refuse it, because ${why}.`;
  if (d.decision === 'allow') return `Agent Bash would run it without asking, because ${why}.`;
  if (sandbox && runsWithoutAsking(d, { sandbox: { active: sandbox.level === 'sandboxed', autoApprove: sandbox.autoApprove } })) {
    return `Agent Bash would run it in the sandbox without asking you (\`agentBash.sandbox.autoApprove\` is on); outside the sandbox it would ask, because ${why}.`;
  }
  return `Agent Bash would ask you, because ${why}.`;
}

const VERDICT_WORDS: Readonly<Record<Verdict, string>> = { allow: 'runs without asking', prompt: 'asks', deny: 'refused' };

/** One command of the line: "`git status`: runs without asking: the allow rule `git status*` in user settings covers it." */
export function segmentLine(s: SegmentDecision): string {
  const head = `${code(s.segment.text || s.segment.source)}: ${VERDICT_WORDS[s.decision]}`;
  const rule = s.rule ? ruleRef(s.rule, s.layer, s.layerSource) : undefined;
  if (s.kind === undefined || s.kind === 'rule' || s.kind === 'default') {
    if (!s.rule || !rule) return `${head}: no rule covers it.`;
    return `${head}: ${rule} ${s.rule.approval === 'allow' ? 'covers' : 'matches'} it.`;
  }
  // Another check made it ask: say which, and the rule that would otherwise have decided.
  const why = s.reason ? plainReason(s.reason, 'it') : 'a check made it ask';
  const otherwise = s.rule?.approval === 'allow' && rule ? ` (${rule} covers it otherwise)` : '';
  return `${head}: ${why}${otherwise}.`;
}

function list(items: readonly string[]): string {
  return items.map((i) => `\`${i}\``).join(', ');
}

/**
 * Every deny and ask rule that matched the command (PolicyDecision.restrictive), the deciding one
 * first: "the deny rule `touch secret*` in user settings matches `touch secret.txt` (it decided)".
 */
export function matchedRuleLines(d: PolicyDecision): string[] {
  const all = [...(d.restrictive ?? [])].sort((a, b) => Number(b.rule === d.rule) - Number(a.rule === d.rule));
  return all.map((m) => `${ruleRef(m.rule, m.layer, m.layerSource)} matches ${code(m.text)}${m.rule === d.rule ? ' (it decided)' : ''}`);
}

/** What the OS sandbox would confine, one Markdown bullet each. */
export function sandboxLines(sb: ExplainSandbox): string[] {
  if (typeof sb.level === 'object') {
    return [`The sandbox is on (\`agentBash.sandbox.enabled\` is \`on\`) but cannot start here, so nothing would run: ${sb.level.error}`];
  }
  if (sb.level !== 'sandboxed') {
    const why = sb.mode === 'off' ? 'The sandbox is off (`agentBash.sandbox.enabled` is `off`)' : 'The sandbox cannot start on this machine';
    const how =
      sb.level === 'contained'
        ? 'it would run with your own rights, in a process namespace of its own so nothing it starts outlives it'
        : 'it would run with your own rights';
    return [`${why}: ${how}. Nothing confines what it writes or which hosts it reaches.`];
  }
  const caches = sb.sharedCaches ? 'your package caches (`agentBash.sandbox.caches.shareWithHost`)' : 'package caches of its own';
  const writes = sb.allowWrite.length
    ? `the workspace folders, a temporary folder of its own, ${caches} and ${list(sb.allowWrite)} (\`agentBash.sandbox.filesystem.allowWrite\`)`
    : `the workspace folders, a temporary folder of its own and ${caches}`;
  const lines = [`Writes: only ${writes}; the rest of the file system is read-only.`];
  if (sb.denyWrite.length) lines.push(`Never writable: ${list(sb.denyWrite)} (\`agentBash.sandbox.filesystem.denyWrite\`).`);
  lines.push(
    sb.gitAllowWrite
      ? 'Git: commits may write `.git` (`agentBash.sandbox.git.allowWrite`); its config and hooks stay read-only.'
      : 'Git: `.git` folders stay read-only (`agentBash.sandbox.git.allowWrite` is off).',
  );
  const hidden = sb.denyRead.length ? ` and ${list(sb.denyRead)} (\`agentBash.sandbox.filesystem.denyRead\`)` : '';
  lines.push(`Hidden: your credentials (\`~/.ssh\`, cloud and registry tokens, …)${hidden}.`);
  lines.push(
    sb.allowedDomains.length
      ? `Network: only ${list(sb.allowedDomains)} (\`agentBash.sandbox.network.allowedDomains\`).`
      : 'Network: none (`agentBash.sandbox.network.allowedDomains` is empty).',
  );
  return lines;
}

const TRACE_MARKS: Readonly<Record<CheckTrace['result'], string>> = { pass: 'passed', ask: 'asks', deny: 'refuses', skip: 'not run' };

/** One check as a list item: "`workspace_scope` asks: `cat ../y` touches …". */
function traceItem(t: CheckTrace): string {
  const where = t.cwd === undefined ? '' : ` (in \`${t.cwd}\`)`;
  const detail = t.detail === undefined ? '' : t.result === 'ask' || t.result === 'deny' ? `: ${plainReason(t.detail, 'it')}` : `: ${t.detail}`;
  return `\`${t.check}\` ${TRACE_MARKS[t.result]}${where}${detail}`;
}

/** The section listing every check (PolicyDecision.trace): empty when the decision kept no trace. */
export function traceLines(d: PolicyDecision): string[] {
  if (!d.trace && !d.segments.some((s) => s.trace)) return [];
  const out = ['## Every check, in the order it ran', ''];
  d.segments.forEach((s, i) => {
    if (!s.trace) return;
    out.push(`${i + 1}. ${code(s.segment.text || s.segment.source)}`);
    for (const t of s.trace) out.push(`   - ${traceItem(t)}`);
  });
  if (d.trace?.length) {
    out.push('', 'The whole line:', '');
    for (const t of d.trace) out.push(`- ${traceItem(t)}`);
  }
  out.push('');
  return out;
}

/** The whole explanation as Markdown (the read-only document Explain Policy Decision opens). */
export function explainMarkdown(command: string, d: PolicyDecision, opts: { cwd?: string; sandbox?: ExplainSandbox; actions?: readonly string[] } = {}): string {
  const out = [`# Agent Bash: ${code(command)}`, '', decisionSentence(command, d, opts.sandbox), ''];
  if (opts.cwd) out.push(`Judged as run in \`${opts.cwd}\`. Nothing was run.`, '');
  if (d.segments.length > 0) {
    out.push(d.segments.length === 1 ? '## The command' : `## The ${d.segments.length} commands in this line`, '');
    d.segments.forEach((s, i) => out.push(`${i + 1}. ${segmentLine(s)}`));
    out.push('');
  }
  const matched = matchedRuleLines(d);
  if (matched.length) {
    out.push('## Deny and ask rules that matched', '', 'Deny beats ask beats allow, whatever the order of the rules.', '');
    for (const line of matched) out.push(`- ${line}`);
    out.push('');
  }
  if (opts.sandbox) {
    out.push('## What the sandbox would confine', '');
    if (opts.sandbox.readOnly && readOnlyLine(d)) out.push(`- ${readOnlyFenceLine(opts.sandbox.readOnly)}`);
    for (const line of sandboxLines(opts.sandbox)) out.push(`- ${line}`);
    out.push('');
  }
  if (opts.actions?.length) {
    out.push('## What you can do', '');
    for (const a of opts.actions) out.push(`- ${a}`);
    out.push('');
  }
  out.push(...traceLines(d));
  return out.join('\n');
}
