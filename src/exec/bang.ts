// User bang commands: `!cmd` typed by the person, run as they would run it in their own
// shell. No approval, no interceptor, no URL expansion: the person is the author. The timeout is
// the tool's default (300 s) through the same clamp, so a global ceiling applies here too.
import { spawn } from 'node:child_process';
import type { LocalExecutor } from '../core/contracts';
import { OutputSink } from '../core/output/outputSink';
import { clampTimeout } from '../core/timeout';
import { LocalShellExecutor } from './localExecutor';
import { killProcessTree } from './processTree';
import { RunGuard } from './runControl';
import { shellKind, shellQuote } from './shellConfig';

export const CD_WHILE_STREAMING = 'Wait for the current response to finish or abort it before changing directories.';
export const bangFailedMessage = (msg: string): string => `Bash command failed: ${msg}`;
export const BANG_NO_OUTPUT = '(no output)';
export const BANG_CANCELLED_LINE = '(command cancelled)';

export interface BangOptions {
  /** The session cwd the command starts in. */
  cwd: string;
  signal?: AbortSignal;
  /** Sanitised text as it arrives (throttled by the sink). */
  onChunk?: (text: string) => void;
  /** `agentBash.maxTimeout` in seconds (≤ 0 = no ceiling). */
  maxTimeout?: number;
  /** The session's executor, so `!` commands share its persistent shell; default: a one-call executor. */
  executor?: LocalExecutor;
  /** The session id captured when the command started (persistent-shell key). */
  sessionKey?: string;
  /** The person's shell (default `$SHELL`). */
  userShell?: string;
  /** The previous session cwd, for `cd -`. */
  previousCwd?: string;
  /** Sink windows (defaults as the tool's). */
  headBytes?: number;
  maxColumns?: number;
}

export interface BangResult {
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  timedOut: boolean;
  /** Set when a plain `cd` succeeded: the session cwd moves here. */
  newCwd?: string;
}

/**
 * A standalone `cd` (bare, `cd -`, or one path word, quoted or not) and nothing else: the only
 * shape whose effect on the session cwd we can apply without running the person's shell for good.
 */
export function isPersistentShellCdCommand(command: string): boolean {
  return /^\s*cd(?:\s+(?:'[^']*'|"[^"$`\\]*"|[^\s;&|<>()$`'"]+))?\s*$/.test(command);
}

/**
 * How the line is handed to the shell the executor runs (bash): bash users get it as is; zsh and
 * fish users get their own shell started interactively (`-i`, so their aliases and functions exist),
 * fish without `-l`, which it would reject alongside `-c`.
 */
export function wrapForUserShell(command: string, userShell: string | undefined): string {
  if (!userShell) return command;
  const kind = shellKind(userShell);
  if (kind === 'zsh') return `${shellQuote(userShell)} -l -i -c ${shellQuote(command)}`;
  if (kind === 'fish') return `${shellQuote(userShell)} -i -c ${shellQuote(command)}`;
  return command;
}

export async function runBang(command: string, options: BangOptions): Promise<BangResult> {
  const timeout = clampTimeout(undefined, options.maxTimeout ?? 0);
  if (isPersistentShellCdCommand(command)) return runCd(command, options, timeout.timeoutMs);

  const sink = new OutputSink({
    // No artifact: bang output is bounded in memory only.
    ...(options.headBytes !== undefined ? { headBytes: options.headBytes } : {}),
    ...(options.maxColumns !== undefined ? { maxColumns: options.maxColumns } : {}),
    ...(options.onChunk ? { onChunk: options.onChunk } : {}),
  });
  const owned = options.executor ? undefined : new LocalShellExecutor({ persistent: false });
  const executor = options.executor ?? (owned as LocalShellExecutor);
  try {
    const res = await executor.run({
      command: wrapForUserShell(command, options.userShell ?? process.env.SHELL),
      cwd: options.cwd,
      timeoutMs: timeout.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.sessionKey !== undefined ? { sessionKey: options.sessionKey } : {}),
      sink,
      // The person's own command: never the agent's sandbox, but contained like every other process.
      sandbox: 'off',
    });
    return {
      command,
      output: res.summary.output,
      exitCode: res.exitCode,
      cancelled: res.cancelled,
      truncated: res.summary.truncated,
      timedOut: res.timedOut,
    };
  } finally {
    sink.dispose();
    await owned?.dispose();
  }
}

/**
 * Runs the `cd` in a short-lived shell from the session cwd and reads where it landed. The
 * landing directory goes to stdout (`pwd` after a silenced `cd`), errors to stderr, which is the
 * output the person sees.
 */
function runCd(command: string, options: BangOptions, timeoutMs: number): Promise<BangResult> {
  const base: BangResult = { command, output: '', exitCode: undefined, cancelled: false, truncated: false, timedOut: false };
  if (options.signal?.aborted) return Promise.resolve({ ...base, cancelled: true });
  const user = options.userShell ?? process.env.SHELL;
  const kind = user ? shellKind(user) : 'other';
  const shell = user && (kind === 'bash' || kind === 'zsh' || kind === 'sh') ? user : 'bash';
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  env.PWD = options.cwd;
  if (options.previousCwd) env.OLDPWD = options.previousCwd;
  else delete env.OLDPWD;

  return new Promise((resolve) => {
    const child = spawn(shell, ['-c', `${command.trim()} >/dev/null && pwd`], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const guard = new RunGuard(timeoutMs, options.signal, () => void killProcessTree(child));
    let done = false;
    const finish = (code: number | null, failure?: Error): void => {
      if (done) return;
      done = true;
      guard.dispose();
      const stopped = guard.reason;
      const output = failure ? `${failure.message}\n` : Buffer.concat(err).toString('utf8');
      const landed = Buffer.concat(out).toString('utf8').replace(/\n$/, '');
      resolve({
        ...base,
        output,
        exitCode: stopped || failure ? undefined : (code ?? undefined),
        cancelled: stopped !== undefined,
        timedOut: stopped === 'timeout',
        ...(code === 0 && !stopped && landed !== '' ? { newCwd: landed } : {}),
      });
    };
    child.once('error', (e) => finish(null, e));
    child.once('close', (code) => finish(code));
  });
}

/**
 * The text a bang result contributes to the conversation: `Ran \`cmd\``, the output in a
 * fenced block, then the cancel or exit-code line.
 */
export function bangMessageText(result: BangResult): string {
  const body = result.output.replace(/\n$/, '') || BANG_NO_OUTPUT;
  let text = `Ran \`${result.command}\`\n\`\`\`\n${body}\n\`\`\``;
  if (result.cancelled) text += `\n\n${BANG_CANCELLED_LINE}`;
  else if (result.exitCode !== undefined && result.exitCode !== 0) text += `\n\nCommand exited with code ${result.exitCode}`;
  return text;
}
