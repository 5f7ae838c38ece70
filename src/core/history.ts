// The history of every command any caller ran (or tried to): one plain record per command, built
// from its tool result, and a bounded newest-first list that persists as JSON. Pure; the view and the
// workspaceState storage live in src/vscode/history/.
import type { BashToolDetails, CallerInfo, RuleLayerName, ToolResult } from './contracts';
import * as human from './humanMessages';
import { NO_OUTPUT } from './output/results';
import { layerLabel } from './policy/rules/ruleLayerLabel';

/** Who let a command run (the policy gate's `decidedBy`). */
export type { DecidedBy } from './policy/policyGate';
import type { DecidedBy } from './policy/policyGate';

export interface HistoryDecision {
  /** `cancelled`: stopped before anyone decided (e.g. while the dialog was open). */
  outcome: 'allowed' | 'denied' | 'cancelled' | 'invalid';
  decidedBy?: DecidedBy;
  /** The rule that decided, when one did. */
  rule?: string;
  /** Your own bang command: no policy judged it (you are its author). */
  own?: true;
  /** That rule's layer (`builtin`, `managed`, `user`, `workspace`, `folder`, `file`) and where it was read. */
  layer?: RuleLayerName;
  layerSource?: string;
  /** Other deny and prompt rules that matched the command (PolicyDecision.restrictive), named. */
  alsoMatched?: string[];
}

/** What the pipeline knows about its policy step: BashToolDetails.decision, the reason aside. */
export type PolicyTrace = Omit<NonNullable<BashToolDetails['decision']>, 'reason'>;

/**
 * Who decided, from the policy verdict and the approval answer. The one place to point at the policy
 * gate's own `decidedBy` once it exists.
 */
export function decidedBy(trace: PolicyTrace | undefined, cancelled: boolean): HistoryDecision {
  if (!trace) return { outcome: cancelled ? 'cancelled' : 'invalid' };
  const rule = trace.rule
    ? {
        rule: trace.rule,
        ...(trace.layer ? { layer: trace.layer } : {}),
        ...(trace.layerSource !== undefined ? { layerSource: trace.layerSource } : {}),
        ...(trace.alsoMatched?.length ? { alsoMatched: trace.alsoMatched } : {}),
      }
    : {};
  if (trace.decision === 'deny') return { outcome: 'denied', decidedBy: 'rule', ...rule };
  if (trace.decision === 'allow') return { outcome: 'allowed', decidedBy: 'rule', ...rule };
  if (trace.decidedBy === 'sandbox') return { outcome: 'allowed', decidedBy: 'sandbox' };
  switch (trace.answer) {
    case 'allow':
      return { outcome: 'allowed', decidedBy: 'user-once' };
    case 'session':
      return { outcome: 'allowed', decidedBy: 'user-session' };
    case 'always':
      return { outcome: 'allowed', decidedBy: 'user-always' };
    case 'deny':
      return cancelled ? { outcome: 'cancelled' } : { outcome: 'denied', decidedBy: 'user-once' };
    default:
      return { outcome: 'cancelled' };
  }
}

/** "; also matched ask rule `git push *` from user settings" when other deny or prompt rules matched. */
function alsoMatched(d: HistoryDecision): string {
  return d.alsoMatched?.length ? `; also matched ${d.alsoMatched.join(', ')}` : '';
}

/** The deciding rule's layer as the policy side records it on a history decision (when it does). */
type WithLayer = HistoryDecision & { layer?: RuleLayerName; layerSource?: string };

/** "`git status *`", or "`git status *` from user settings" when the rule's layer is known. */
function ruleWithLayer(d: WithLayer): string {
  const rule = `\`${d.rule ?? ''}\``;
  return d.layer ? `${rule} from ${layerLabel(d.layer, d.layerSource)}` : rule;
}

export interface HistoryEntry {
  id: string;
  /** Epoch ms when it was recorded (the end of the run). */
  at: number;
  command: string;
  cwd?: string;
  caller: CallerInfo;
  decision: HistoryDecision;
  /** How it ended. `not-run`: denied, cancelled before it started, or refused (bad input). */
  end: 'running' | 'exit' | 'signal' | 'timeout' | 'cancelled' | 'background' | 'not-run' | 'failed';
  exitCode?: number;
  signal?: string;
  durationMs?: number;
  /** Bytes the command wrote (all of it, also what was cut). */
  outputBytes?: number;
  /** Bytes the agent saw, when the output was cut. */
  shownBytes?: number;
  artifactId?: string;
  terminalId?: string;
  /** The background job it became (kept after the job ended: its end then says "killed", not "cancelled"). */
  jobId?: string;
  /** Who killed the job, when known ("you", an MCP client's name). */
  killedBy?: string;
  /** The first line of the result text for refusals and failures (what the agent read). */
  note?: string;
  /** What the OS sandbox refused the command, when it refused something. */
  sandboxRefused?: { paths: string[]; hosts: string[] };
  /**
   * An auto-approved read: `enforced` when it ran under the read-only fence, `refused` when the fence
   * refused something it tried, `not-enforced` where the kernel could not hold it.
   */
  readOnly?: 'enforced' | 'refused' | 'not-enforced';
  /** The caller's words on what the command does (`description`). */
  description?: string;
  /** It ran outside the OS sandbox (the sandbox was off for it, or cannot run here). */
  outsideSandbox?: true;
  /** The person stopped it with Ctrl+C in its terminal (its signal alone does not say so). */
  stoppedWithCtrlC?: true;
}

export interface RecordInput {
  id: string;
  at: number;
  command: string;
  cwd?: string;
  caller: CallerInfo;
  result: ToolResult;
  /** The caller's abort signal fired (Cancel, Stop, Ctrl+C). */
  cancelled: boolean;
  /** How long the call took, for results that carry no wall time (cancelled, refused). */
  elapsedMs?: number;
  /** Already known (a background job's result carries no policy trace of its own). */
  decision?: HistoryDecision;
  /** The caller's words on what the command does (`description`). */
  description?: string;
}

export function entryFromResult(input: RecordInput): HistoryEntry {
  const { result } = input;
  const d = result.details;
  const trace = d.decision as (PolicyTrace & { reason?: string }) | undefined;
  const decision = input.decision ?? decidedBy(trace, input.cancelled);
  const entry: HistoryEntry = {
    id: input.id,
    at: input.at,
    command: input.command,
    caller: input.caller,
    decision,
    end: 'failed',
  };
  if (input.cwd !== undefined) entry.cwd = input.cwd;
  if (input.description !== undefined) entry.description = input.description;
  const text = result.content.map((c) => c.text).join('\n');
  if (d.wallTimeMs !== undefined) entry.durationMs = d.wallTimeMs;
  else if (input.elapsedMs !== undefined && input.cancelled) entry.durationMs = input.elapsedMs;
  if (d.artifactId !== undefined) entry.artifactId = d.artifactId;
  if (d.terminalId !== undefined) entry.terminalId = d.terminalId;
  const refused = d.sandbox?.refused;
  if (refused && (refused.paths.length > 0 || refused.hosts.length > 0)) entry.sandboxRefused = refused;
  if (d.sandbox && d.sandbox.level !== 'sandboxed') entry.outsideSandbox = true;
  const ro = d.sandbox?.readOnly;
  if (ro) entry.readOnly = !ro.enforced ? 'not-enforced' : ro.refused ? 'refused' : 'enforced';
  const truncation = (d.meta as { truncation?: { totalBytes: number; outputBytes: number } } | undefined)?.truncation;
  if (decision.outcome !== 'allowed') {
    entry.end = 'not-run';
  } else if (d.async) {
    entry.end = 'background';
    entry.jobId = d.async.jobId;
  } else if (d.timedOut) {
    entry.end = 'timeout';
  } else if (d.signal) {
    entry.end = 'signal';
    entry.signal = d.signal;
    if (d.exitCode !== undefined) entry.exitCode = d.exitCode;
  } else if (d.wallTimeMs !== undefined) {
    entry.end = 'exit';
    entry.exitCode = d.exitCode ?? 0;
  } else if (input.cancelled) {
    entry.end = 'cancelled';
  }
  if (entry.end !== 'not-run' && entry.end !== 'background') {
    entry.outputBytes = truncation?.totalBytes ?? Buffer.byteLength(outputPart(text), 'utf8');
    if (truncation) entry.shownBytes = truncation.outputBytes;
  }
  if (result.isError && (entry.end === 'not-run' || entry.end === 'failed' || entry.end === 'cancelled')) {
    // In a person's words: no "in segment 1"; no "Command aborted" (the row's ending says it).
    const first = human.withoutSegments(text.split('\n')[0] ?? '');
    if (human.withoutAgentTrailers(first)) entry.note = first;
  }
  return entry;
}

/** The command's own output in a complete result: the text before the wall-time notice (results.ts). */
function outputPart(text: string): string {
  // The agent's closing lines ("Command cancelled" of a stopped run) are not what the command printed.
  const body = human.withoutAgentTrailers(text.split(/\n\nWall time: [\d.]+ seconds/)[0] ?? '');
  return body === NO_OUTPUT ? '' : body;
}

/**
 * A background entry once its job ended: the job's result decides how it ended (finished, failed,
 * killed or timed out). `killedBy`: who killed it, when the job manager was told.
 */
export function completeJobEntry(entry: HistoryEntry, result: ToolResult | undefined, cancelled: boolean, durationMs: number, killedBy?: string): HistoryEntry {
  const killer = cancelled && killedBy !== undefined ? { killedBy } : {};
  if (!result) return { ...entry, end: cancelled ? 'cancelled' : 'failed', durationMs, ...killer };
  // A job's result says which job it was (details.async); read as a fresh result it would start the job again.
  const details = { ...result.details };
  delete details.async;
  const done = entryFromResult({
    id: entry.id,
    at: entry.at,
    command: entry.command,
    ...(entry.cwd !== undefined ? { cwd: entry.cwd } : {}),
    caller: entry.caller,
    result: { ...result, details },
    cancelled,
    decision: entry.decision,
  });
  done.durationMs ??= durationMs;
  if (entry.jobId !== undefined) done.jobId = entry.jobId;
  return { ...done, ...killer };
}

/** "rule `git status*`", "you, once", "you, for this session", "you, always", "sandbox", "denied by you"… */
export function decisionLabel(d: HistoryDecision): string {
  if (d.own) return 'your own command (no approval)';
  if (d.outcome === 'cancelled') return 'cancelled before it ran';
  if (d.outcome === 'invalid') return 'refused: not a valid call';
  if (d.outcome === 'denied') return d.decidedBy === 'rule' ? (d.rule ? `denied by rule ${ruleWithLayer(d)}${alsoMatched(d)}` : 'denied by the policy') : 'denied by you';
  switch (d.decidedBy) {
    case 'rule':
      return d.rule ? `allowed by rule ${ruleWithLayer(d)}` : 'allowed by the rules';
    case 'user-once':
      return 'allowed by you, once';
    case 'user-session':
      return 'allowed by you for this session';
    case 'user-always':
      return 'allowed by you, always';
    case 'sandbox':
      return 'allowed by the sandbox';
    default:
      return 'allowed';
  }
}

/** Who cancelled: the person from the palette, or the caller that cancelled its own call (no time: endSentence adds it). */
function cancelledLabel(e: HistoryEntry): string {
  return e.caller.kind === 'palette' ? 'Stopped: you cancelled it' : `Stopped: ${human.STOPPED.cancelledBy(e.caller.name)}`;
}

/** A background job that was killed: "Killed by you", "Killed by Claude Code", or "Killed" when nobody said who. */
function killedLabel(e: HistoryEntry): string {
  return e.killedBy === undefined ? 'Killed' : `Killed by ${e.killedBy}`;
}

/** How it ended (or, while it runs, for how long it has been running), in plain words. */
export function endLabel(e: HistoryEntry, now = Date.now()): string {
  switch (e.end) {
    case 'running':
      return human.runningFor(Math.max(0, now - e.at));
    case 'exit':
      return human.exited(e.exitCode ?? 0);
    case 'signal':
      return e.stoppedWithCtrlC ? human.STOPPED_BY_CTRL_C : human.KILLED_BY_SIGNAL;
    case 'timeout':
      return 'Stopped: it ran out of time';
    case 'cancelled':
      return e.jobId !== undefined ? killedLabel(e) : cancelledLabel(e);
    case 'background':
      return 'Running as a background job';
    case 'not-run':
      if (e.decision.outcome !== 'cancelled') return 'Not run';
      // Stopped before it ran (while the approval dialog was open): by the person, or by the caller.
      return e.caller.kind === 'palette' ? 'Not run: you cancelled it' : `Not run: ${human.STOPPED.cancelledBy(e.caller.name)}`;
    case 'failed':
      return 'Failed';
  }
}

/**
 * How it ended with how long it took, said once: "Finished (exit 0) in 1.2 s", "Stopped after 2 s: it
 * ran out of time", "Stopped by you (Ctrl+C) after 3 s" (the toast's and the output document's sentence).
 */
export function endSentence(e: HistoryEntry, now = Date.now()): string {
  const label = endLabel(e, now);
  if (e.durationMs === undefined || e.end === 'running' || e.end === 'background' || e.end === 'not-run') return label;
  const took = human.duration(e.durationMs);
  if (label.startsWith('Stopped: ')) return `Stopped after ${took}: ${label.slice('Stopped: '.length)}`;
  if (e.end === 'exit') return `${label} in ${took}`;
  return `${label} after ${took}`;
}

/** The history row's sandbox mark: what the sandbox refused, in a few words; how a read ran. */
export function sandboxMark(e: HistoryEntry): string | undefined {
  const marks: string[] = [];
  if (e.outsideSandbox) marks.push(OUTSIDE_SANDBOX_MARK);
  if (e.readOnly) marks.push(READ_ONLY_MARKS[e.readOnly]);
  const r = e.sandboxRefused;
  if (r) marks.push(`sandbox refused ${[...r.paths.map((p) => `writing ${p}`), ...r.hosts.map((h) => `reaching ${h}`)].join(', ')}`);
  return marks.length > 0 ? marks.join(' · ') : undefined;
}

/** A run the OS sandbox did not hold, in the History row's words. */
export const OUTSIDE_SANDBOX_MARK = 'outside the sandbox';

/** How an auto-approved read ran, in the History row's words. */
export const READ_ONLY_MARKS = {
  enforced: 'read-only',
  refused: 'read-only: write refused',
  'not-enforced': 'read-only not enforced here',
} as const;

/** The one-line description beside the command in the view (a running command's time is `now - at`). */
export function entryDescription(e: HistoryEntry, now = Date.now()): string {
  const parts = [e.caller.name];
  if (e.description) parts.push(`“${shortDescription(e.description, 60)}”`);
  parts.push(decisionLabel(e.decision), endLabel(e, now));
  const mark = sandboxMark(e);
  if (mark) parts.push(mark);
  if (e.durationMs !== undefined) parts.push(human.duration(e.durationMs));
  if (e.outputBytes !== undefined) parts.push(human.byteSize(e.outputBytes));
  return parts.join(' · ');
}

/** A description on one line, cut to `max` characters with an ellipsis. */
function shortDescription(text: string, max: number): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The hover text: every field, one per line. */
export function entryTooltip(e: HistoryEntry, now = Date.now()): string {
  const lines = [
    `$ ${e.command}`,
    ...(e.description ? [`What it does (the caller's words): ${shortDescription(e.description, 500)}`] : []),
    `Caller: ${e.caller.name}`,
    `Decision: ${decisionLabel(e.decision)}`,
    `Working directory: ${e.cwd ?? 'the session directory'}`,
    `Result: ${endLabel(e, now)}`,
  ];
  // The row's sandbox mark is cut off at a usual panel width: the hover says it in full.
  const mark = sandboxMark(e);
  if (mark) lines.push(`Sandbox: ${mark.replace(/(^|· )sandbox refused/g, '$1refused')}`);
  if (e.durationMs !== undefined) lines.push(`Duration: ${human.duration(e.durationMs)}`);
  if (e.outputBytes !== undefined) lines.push(`Output: ${human.byteSize(e.outputBytes)}`);
  if (e.end === 'signal' && e.signal) lines.push(human.signalDetail(e.signal, e.exitCode));
  const cut = human.outputCut(e.shownBytes, e.outputBytes);
  if (cut) lines.push(cut);
  if (e.artifactId) lines.push(`Full output: ${human.artifactLabel(e.artifactId, e.command, e.outputBytes)}`);
  if (e.note) lines.push(e.note);
  return lines.join('\n');
}

export const HISTORY_LIMIT = 500;

/** Newest first, at most `limit` entries. */
export class HistoryList {
  private items: HistoryEntry[];

  constructor(
    initial: readonly HistoryEntry[] = [],
    private readonly limit = HISTORY_LIMIT,
  ) {
    this.items = initial.filter(isEntry).slice(0, limit);
  }

  get entries(): readonly HistoryEntry[] {
    return this.items;
  }

  add(entry: HistoryEntry): void {
    this.items.unshift(entry);
    if (this.items.length > this.limit) this.items.length = this.limit;
  }

  get(id: string): HistoryEntry | undefined {
    return this.items.find((e) => e.id === id);
  }

  /** Replaces the entry with the same id; false when it is no longer in the list. */
  replace(entry: HistoryEntry): boolean {
    const i = this.items.findIndex((e) => e.id === entry.id);
    if (i < 0) return false;
    this.items[i] = entry;
    return true;
  }

  findByJob(jobId: string): HistoryEntry | undefined {
    return this.items.find((e) => e.jobId === jobId && e.end === 'background');
  }

  clear(): void {
    this.items = [];
  }
}

/** Stored data from an older or broken version is dropped rather than shown half-read. */
function isEntry(value: unknown): value is HistoryEntry {
  const e = value as Partial<HistoryEntry> | null;
  return !!e && typeof e.id === 'string' && typeof e.command === 'string' && typeof e.at === 'number' && !!e.caller && !!e.decision;
}

/** The top of an output document: what ran, where, who decided and how it ended. */
export function outputHeader(e: HistoryEntry, shows: 'all' | 'window' = 'all'): string {
  const lines = [
    `$ ${e.command}`,
    `Working directory: ${e.cwd ?? 'the session directory'}`,
    `Run by: ${e.caller.name}`,
    `Decision: ${decisionLabel(e.decision)}`,
    `Result: ${endSentence(e)}`,
  ];
  if (e.outputBytes !== undefined) lines.push(`Output: ${human.byteSize(e.outputBytes)}`);
  const cut = human.outputCut(e.shownBytes, e.outputBytes);
  if (cut) lines.push(shows === 'all' ? `${cut} Below is all of it.` : cut);
  lines.push('─'.repeat(60), '');
  return lines.join('\n');
}

/**
 * How loud the notification after a palette run is: the person's own Deny, a cancel, Ctrl+C and any
 * exit code (a `grep` that found nothing) are information; a rule's refusal, a timeout and a signal
 * are warnings; only Agent Bash failing to run it at all is an error.
 */
export function toastLevel(e: HistoryEntry): 'info' | 'warning' | 'error' {
  if (e.decision.outcome === 'denied') return e.decision.decidedBy === 'rule' ? 'warning' : 'info';
  if (e.decision.outcome === 'cancelled') return 'info';
  switch (e.end) {
    case 'exit':
    case 'cancelled':
    case 'background':
    case 'running':
      return 'info';
    case 'signal':
      return e.stoppedWithCtrlC ? 'info' : 'warning';
    case 'timeout':
      return 'warning';
    default:
      return 'error';
  }
}

/** The notification after a palette run: the outcome in plain words, and whether output was cut. */
export function toastMessage(e: HistoryEntry): string {
  const what = human.code(e.command);
  if (e.decision.outcome === 'denied') {
    return `Agent Bash: ${e.decision.decidedBy === 'rule' ? human.ruleDenied(e.command, e.decision.rule) : human.youDenied(e.command)}`;
  }
  if (e.decision.outcome === 'cancelled' || e.end === 'cancelled') return `Agent Bash: ${what}: ${endSentence({ ...e, end: 'cancelled' })}.`;
  if (e.end === 'not-run' || e.end === 'failed') return `Agent Bash: ${what} did not run: ${e.note ?? 'it failed'}`;
  const cut = human.outputCut(e.shownBytes, e.outputBytes);
  return `Agent Bash: ${what}: ${endSentence(e)}.${cut ? ` ${cut} Show Output has all of it.` : ''}`;
}
