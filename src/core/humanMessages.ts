// What a person reads (dialogs, notifications, the history view, terminal status lines). The agent
// keeps the exact spec strings of results.ts and pipeline.ts; these are the same facts in plain words,
// without the policy's internals ("segment 1", "Command aborted").
import type { PolicyDecision } from './contracts';
import { shown } from './policy/policyReasons';
import { SANDBOX_OFF_REASON } from './policy/policyGate';

/**
 * A message for a VS Code notification, which shows Markdown as typed: code spans become quotes
 * ("`ls -la`" → "“ls -la”").
 */
export function plainNotice(text: string): string {
  return text.replace(/`([^`\n]+)`/g, '“$1”');
}

/** `ls -la` as a code span, one line, bounded. */
export function code(command: string): string {
  return `\`${shown(command)}\``;
}

export function youDenied(command: string): string {
  return `You denied ${code(command)}.`;
}

export function ruleDenied(command: string, rule: string | undefined): string {
  return rule ? `Rule \`${rule}\` denies ${code(command)}.` : `Agent Bash refuses ${code(command)}.`;
}

/** SANDBOX_OFF_REASON in a person's words (the agent's `sandbox: "off"` is the protocol's). */
export const RUNS_OUTSIDE_SANDBOX = 'runs outside the OS sandbox this time (its caller asked for that)';

/** The policy's words without its internals: "`rm x` matched deny rule `rm *`", no "in segment 1". */
export function withoutSegments(text: string): string {
  return text.replace(/ in segment \d+/g, '');
}

/** Why the approval dialog asks, for a prompt-level decision. */
export function whyAsked(command: string, decision: PolicyDecision): string {
  // The part that made it ask, as written (with its redirects), not the normalised text.
  const seg = decision.segmentIndex !== undefined ? decision.segments[decision.segmentIndex - 1]?.segment : undefined;
  const what = code(decision.segments.length <= 1 ? command : seg?.source || seg?.text || command);
  // `sandbox: "off"` asks on its own (an allowed command) or on top of another reason.
  if (decision.reason === SANDBOX_OFF_REASON) return `Agent Bash asks because ${what} ${RUNS_OUTSIDE_SANDBOX}.`;
  const base = whyAskedByPolicy(command, what, decision);
  return decision.reason.endsWith(`; ${SANDBOX_OFF_REASON}`) ? `${base} Also, it ${RUNS_OUTSIDE_SANDBOX}.` : base;
}

function whyAskedByPolicy(command: string, what: string, decision: PolicyDecision): string {
  switch (decision.kind) {
    case 'rule':
      return decision.rule ? `Rule \`${decision.rule.match}\` says to ask before ${what}.` : `A rule says to ask before ${what}.`;
    case 'critical':
      return `${what} can do lasting damage, so Agent Bash always asks.`;
    case 'uncertain':
      return `Agent Bash cannot tell for sure what ${code(command)} does, so it asks: ${plainReason(decision.reason)}.`;
    case 'opaque':
      return `${what} runs code Agent Bash cannot see, so it asks.`;
    case 'external_directory':
      return `${what} reaches outside the workspace folders, so Agent Bash asks.`;
    case 'redirect':
      // The segment's own text leaves its redirects out; the whole line shows the write.
      return `${code(command)} writes to a file, which its allow rule does not cover, so Agent Bash asks.`;
    case 'default':
      return `No rule matches ${what}, so Agent Bash asks.`;
    case 'unreadable_rules':
      // "The managed rules file cannot be used (…), so every command asks until it is fixed."
      return `${decision.reason.charAt(0).toUpperCase()}${decision.reason.slice(1)}.`;
  }
}

/**
 * The policy's reason without its internals: no "in segment 2", no restated preamble (the sentence
 * around it already says Agent Bash cannot tell for sure).
 */
function plainReason(reason: string): string {
  return reason
    .replace(/^the command could not be analysed with certainty: /, '')
    .replace(/^the command uses a construct the policy does not auto-approve: /, '')
    .replace(/ in segment \d+/g, '');
}

/** The agent's end-of-result lines that restate how the run ended (the header says it in words). */
const AGENT_TRAILERS = /^(?:Command cancelled|Command aborted|\[?Command timed out(?: after [0-9.]+ seconds)?\]?|Wall time: [0-9.]+ seconds|Command exited with code -?\d+)$/;

/**
 * A result text as a person reads it below a header that already says how it ended: the trailing
 * "Command aborted", "Command timed out after 2 seconds", "Wall time…" and exit-code lines go (only
 * at the end, where the pipeline puts them: the command's own output is never touched).
 */
export function withoutAgentTrailers(text: string): string {
  // Only the tail is looked at: a large output is not split into lines for this.
  const cut = Math.max(0, text.length - 2048);
  const lines = text.slice(cut).split('\n');
  let end = lines.length;
  while (end > 0 && (AGENT_TRAILERS.test(lines[end - 1] ?? '') || (lines[end - 1] ?? '') === '')) end--;
  const kept = `${text.slice(0, cut)}${lines.slice(0, end).join('\n')}`;
  return kept && end < lines.length ? `${kept}\n` : kept;
}

/** "20 s", "1.5 s", "350 ms", "2 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toString()} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const s = Math.round(ms / 1000);
  return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
}

/** "812 B", "52 KB", "3.1 MB" (1 KB = 1024 B). */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(Math.round((bytes / (1024 * 1024)) * 10) / 10).toString()} MB`;
}

/** A signal ended it (not the person's Ctrl+C): the signal's name is a detail (signalDetail). */
export const KILLED_BY_SIGNAL = 'Killed by a signal';

/** The details line of a signal ending: "Signal: SIGTERM (the agent read exit 143)". */
export function signalDetail(signal: string, exitCode: number | undefined): string {
  return exitCode === undefined ? `Signal: ${signal}` : `Signal: ${signal} (the agent read exit ${exitCode})`;
}

/** The person pressed Ctrl+C in the command's terminal. */
export const STOPPED_BY_CTRL_C = 'Stopped by you (Ctrl+C)';

/** A History row while its command runs: "Running for 3.2 s". */
export function runningFor(ms: number): string {
  return `Running for ${duration(ms)}`;
}

export function exited(exitCode: number): string {
  return exitCode === 0 ? 'Finished (exit 0)' : `Failed with exit ${exitCode}`;
}

/** "Output cut: the agent saw 50 KB of 3.1 MB." — undefined when nothing was cut. */
export function outputCut(shownBytes: number | undefined, totalBytes: number | undefined): string | undefined {
  if (shownBytes === undefined || totalBytes === undefined || shownBytes >= totalBytes) return undefined;
  return `Output cut: the agent saw ${byteSize(shownBytes)} of ${byteSize(totalBytes)}.`;
}

/** Where agent commands run after the user's own `cd`. */
export function agentCommandsNowRunIn(dir: string): string {
  return `Agent commands now run in ${dir}.`;
}

/** Why a terminal's command was stopped, as its status line says it. */
export const STOPPED = {
  timedOut: (seconds: number | undefined) => (seconds === undefined ? 'timed out' : `timed out after ${seconds} s`),
  cancelledBy: (who: string) => `cancelled by ${who}`,
  ctrlC: 'stopped with Ctrl+C',
} as const;

/** One line for the person: what the sandbox kept the command from doing. */
export function refusalSentence(refused: { paths: string[]; hosts: string[] }): string {
  const parts: string[] = [];
  if (refused.paths.length) parts.push(`writing ${refused.paths.join(', ')}`);
  if (refused.hosts.length) parts.push(`reaching ${refused.hosts.join(', ')}`);
  return `The sandbox kept this command from ${parts.join(' and from ')}.`;
}

/** A command on one line, at most `max` characters, cut with an ellipsis: a title's or a label's part. */
export function shortCommand(command: string, max = 40): string {
  const line = command.slice(0, max * 8).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** "artifact://12 (output of npm test, 1.2 MB)": an artifact as people see it (agents get the bare URI). */
export function artifactLabel(id: string, command?: string, bytes?: number): string {
  const what = [command ? `output of ${shortCommand(command)}` : 'output', ...(bytes !== undefined ? [byteSize(bytes)] : [])];
  return `artifact://${id} (${what.join(', ')})`;
}

/**
 * An output document's title, its file name without the extension: "npm test · 14:05:31" (local
 * time). A `/` in the command would start a folder in the URI: it is shown as `∕`.
 */
export function outputTitle(command: string, at: number): string {
  const t = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${shortCommand(command).replace(/\//g, '∕') || 'command'} · ${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}`;
}
