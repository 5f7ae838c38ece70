// Turns the outcome of a run into the tool result the model reads (oh-my-pi's result shape): the text
// (output, wall time and other notices, exit code, timeout line, inline cap, truncation notice) and
// `BashToolDetails`. Every route (local, PTY, client terminal, background job) ends here, so the model
// sees one format whatever ran the command.

import type { ArtifactStore, BashToolDetails, OutputSummary, TimeoutInfo, ToolResult } from '../contracts';
import { ToolAbortError, ToolError } from '../errors';
import { enforceInlineByteCap } from './inlineCap';
import { DEFAULT_INLINE_CAP_BYTES } from './outputLimits';
import { appendTruncationNotice, truncationFromSummary } from './truncationNotice';

export const NO_OUTPUT = '(no output)';
export const MISSING_EXIT_STATUS = 'Command failed: missing exit status';
export const OUTPUT_TRUNCATED_NOTICE = '(output truncated)';
export const PTY_UNAVAILABLE_NOTICE = 'pty requested but unavailable in this environment; ran without a terminal';
export const BACKGROUNDED_EARLY_NOTICE =
  'Backgrounded early to handle an incoming message; the command keeps running.';
/** Kind of the artifact that keeps the original text behind an inline cap. */
export const ORIGINAL_ARTIFACT_KIND = 'bash-original';

/** `Wall time: <s.ss> seconds`. */
export function wallTimeNotice(wallTimeMs: number): string {
  return `Wall time: ${(wallTimeMs / 1000).toFixed(2)} seconds`;
}

/** `Command exited with code <n>`. */
export function exitCodeLine(code: number): string {
  return `Command exited with code ${code}`;
}

/**
 * `Command timed out after <N> seconds`, or `Command timed out` when the deadline was disabled.
 * `N` is printed as given (1.5 stays 1.5): oh-my-pi's executor rounded while its tool did not, which
 * put two different timeout lines in one result; executors should build their notice with this.
 */
export function timeoutMessage(seconds?: number): string {
  return seconds === undefined ? 'Command timed out' : `Command timed out after ${seconds} seconds`;
}

/** `Backgrounded as job <id>; result will be delivered automatically.` */
export function backgroundedLine(jobId: string): string {
  return `Backgrounded as job ${jobId}; result will be delivered automatically.`;
}

/** Output that already starts with some executor's timeout notice line (whatever its rounding). */
const LEADING_TIMEOUT_LINE = /^\[Command timed out(?: after [0-9.]+ seconds)?\]\n/;

/** The timeout fields of `BashToolDetails`. */
export function timeoutDetails(timeout: TimeoutInfo): BashToolDetails {
  const details: BashToolDetails = {};
  if (timeout.timeoutSec === undefined) details.timeoutDisabled = true;
  else details.timeoutSeconds = timeout.timeoutSec;
  // `timeout: 0` records `requestedTimeoutSeconds: 0` next to `timeoutDisabled`.
  if (timeout.requested !== timeout.timeoutSec) details.requestedTimeoutSeconds = timeout.requested;
  return details;
}

export interface CompletedResultArgs {
  summary: OutputSummary;
  /** Undefined (and not timed out) means the backend lost the exit status: a ToolError. */
  exitCode: number | undefined;
  /** In order, after the wall time: `(output truncated)`, the clamp notice, the pty notice, … */
  notices: string[];
  wallTimeMs: number;
  timeout: TimeoutInfo;
  timedOut?: boolean;
  terminalId?: string;
  /** Where the original text goes when the inline cap cuts it and the summary has no artifact. */
  artifacts?: ArtifactStore;
  signal?: string;
  /** Inline-cap budget; defaults to 53,248 bytes. */
  inlineBudget?: number;
}

/**
 * The completed-run result. Throws `ToolError("<text>\n\nCommand failed: missing exit status")` when
 * the exit code is unknown and the run did not time out.
 */
export async function buildCompletedResult(args: CompletedResultArgs): Promise<ToolResult> {
  const { summary, exitCode, timeout } = args;
  const timedOut = args.timedOut === true;
  // The output's own final newline would read as an extra blank line before the notices.
  const body = summary.output.endsWith('\n') ? summary.output.slice(0, -1) : summary.output;
  const lines: string[] = [body.length > 0 ? body : NO_OUTPUT];
  lines.push('', wallTimeNotice(args.wallTimeMs), ...args.notices);
  if (exitCode !== undefined && exitCode !== 0) lines.push('', exitCodeLine(exitCode));
  if (timedOut) {
    const message = timeoutMessage(timeout.timeoutSec);
    if (!LEADING_TIMEOUT_LINE.test(summary.output)) lines.push('', `[${message}]`);
  }
  let text = lines.join('\n');
  if (exitCode === undefined && !timedOut) {
    text = await capText(text, args);
    throw new ToolError(`${text}\n\n${MISSING_EXIT_STATUS}`);
  }
  text = await capText(text, args);
  const meta = truncationFromSummary(summary);
  text = appendTruncationNotice(text, meta);

  const details: BashToolDetails = timeoutDetails(timeout);
  details.wallTimeMs = args.wallTimeMs;
  if (exitCode !== undefined && exitCode !== 0) details.exitCode = exitCode;
  if (timedOut) details.timedOut = true;
  if (args.terminalId !== undefined) details.terminalId = args.terminalId;
  if (meta !== undefined) details.meta = meta;
  if (summary.artifactId !== undefined) details.artifactId = summary.artifactId;
  if (args.signal !== undefined) details.signal = args.signal;

  const result: ToolResult = { content: [{ type: 'text', text }], details };
  if (timedOut || (exitCode !== undefined && exitCode !== 0)) result.isError = true;
  return result;
}

/** The inline cap with bash's saver: the summary's artifact when there is one, else a new one. */
async function capText(text: string, args: CompletedResultArgs): Promise<string> {
  const budget = args.inlineBudget ?? DEFAULT_INLINE_CAP_BYTES;
  return enforceInlineByteCap(text, budget, async (full) => {
    if (args.summary.artifactId !== undefined) return args.summary.artifactId;
    if (args.artifacts === undefined) return undefined;
    try {
      return await args.artifacts.save(ORIGINAL_ARTIFACT_KIND, full);
    } catch {
      // Losing the copy must not lose the result.
      return undefined;
    }
  });
}

export interface BackgroundStartArgs {
  jobId: string;
  timeout: TimeoutInfo;
  /** The latest tail of the output, when the job was backgrounded after running a while. */
  preview?: string;
  notices?: string[];
}

/** The result returned when a run goes on as a background job. */
export function buildBackgroundStartResult(args: BackgroundStartArgs): ToolResult {
  const parts: string[] = [];
  const preview = args.preview?.trim();
  if (preview) parts.push(preview);
  if (args.notices && args.notices.length > 0) parts.push(args.notices.join('\n'));
  parts.push(backgroundedLine(args.jobId));
  const details: BashToolDetails = {
    async: { state: 'running', jobId: args.jobId, type: 'bash' },
    ...timeoutDetails(args.timeout),
  };
  return { content: [{ type: 'text', text: parts.join('\n\n') }], details };
}

/** The message text of anything thrown; `Error` subclasses keep only their message. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  try {
    // `undefined`, functions and symbols stringify to undefined, which the lib's `string` type hides.
    return (JSON.stringify(err) as string | undefined) ?? String(err);
  } catch {
    return String(err);
  }
}

/** Any failure (ToolError, ToolAbortError, anything else) as an `isError` result with its text. */
export function errorResult(err: unknown): ToolResult {
  const details: BashToolDetails = {};
  return { content: [{ type: 'text', text: errorMessage(err) }], details, isError: true };
}

/** True for the caller's cancellation, which hosts may show differently from a failure. */
export function isAbort(err: unknown): err is ToolAbortError {
  return err instanceof ToolAbortError;
}

/** True for failures the model is meant to read (as opposed to bugs). */
export function isToolError(err: unknown): err is ToolError {
  return err instanceof ToolError;
}

/**
 * The summary of client-terminal output: the client already cut it, so totals equal
 * the shown values. oh-my-pi used `output.length` (UTF-16 units) for the byte counts; we count real
 * UTF-8 bytes so the "limit" in the notice means bytes like everywhere else.
 */
export function summaryFromClientOutput(output: string, truncated: boolean): OutputSummary {
  // A final newline ends the last line; it does not start another (as in the output sink).
  const lines = output.length === 0 ? 0 : output.split('\n').length - (output.endsWith('\n') ? 1 : 0);
  const bytes = Buffer.byteLength(output, 'utf8');
  return { output, truncated, totalLines: lines, totalBytes: bytes, outputLines: lines, outputBytes: bytes };
}
