// One command in a fresh shell (`<shell> -l -c '<command>'`): the path for calls without a session,
// for overlapping calls on a busy session, and while a session is quarantined.
import type { ChildProcess } from 'node:child_process';
import type { ExecRequest, ExecResult } from '../core/contracts';
import { exitStatusOf, groupAlive, killProcessTree, spawnInGroup } from './processTree';
import { cancelledBeforeStart, drainStreams, effectiveDeadlineMs, RunGuard } from './runControl';
import { wrapSpawn, type SandboxRuntime, type WrappedSpawn } from './sandbox/sandboxRuntime';
import { refusalLine } from '../core/sandboxRefusals';
import { shellKind, withPrefix } from './shellConfig';
import { StartTokenFilter } from './startTokenFilter';

export const SPAWN_FAILED = (msg: string): string => `Failed to start shell: ${msg}`;

export interface OneShotOptions {
  shell: string;
  /** Arguments ending with the "run this string" flag (`-l -c`). */
  args: readonly string[];
  /** The complete environment of the shell (non-interactive env and caller env already merged). */
  env: Record<string, string>;
  prefix?: string;
  killGraceMs?: number;
  /** The shell started: lets the owner kill it on dispose. */
  onSpawn?: (child: ChildProcess) => void;
  /** The shell exited but left background processes in its group (`server &`): the owner kills them on dispose. */
  onLingering?: (pgid: number) => void;
  /** Wraps the shell in the OS sandbox / PID namespace; absent: runs it as it is. */
  sandbox?: SandboxRuntime;
}

/**
 * Merging stderr into stdout inside the shell (rather than reading two pipes) keeps the two in the
 * exact order the command wrote them. Shells that cannot `exec 2>&1` still have both pipes read.
 */
export function oneShotScript(command: string, shell: string, prefix?: string, startMarker?: string): string {
  const line = withPrefix(command, prefix);
  return mergesStderr(shell) ? `exec 2>&1; ${startMarker ? `${startMarker}; ` : ''}${line}` : line;
}

function mergesStderr(shell: string): boolean {
  const kind = shellKind(shell);
  return kind === 'bash' || kind === 'zsh' || kind === 'sh';
}

type Ended = { code: number | null; signal: NodeJS.Signals | null } | { error: Error };

export async function runOneShot(req: ExecRequest, options: OneShotOptions): Promise<ExecResult> {
  if (req.signal?.aborted) return cancelledBeforeStart(req.sink);
  let accepting = true;
  // Profile output (before the start token) belongs to no command: see startTokenFilter.ts.
  const filter = mergesStderr(options.shell)
    ? new StartTokenFilter((chunk) => {
        if (accepting) req.sink.push(chunk);
      })
    : undefined;
  const script = oneShotScript(req.command, options.shell, options.prefix, filter?.marker);

  let child: ChildProcess;
  let wrapped: WrappedSpawn;
  try {
    wrapped = wrapSpawn(options.sandbox, [options.shell, ...options.args, script], {
      env: options.env,
      ...(req.env ? { given: req.env } : {}),
      ...(req.sandbox ? { sandbox: req.sandbox } : {}),
      ...(req.readOnly ? { readOnly: req.readOnly } : {}),
      onRefused: (r) => {
        if (accepting) req.sink.push(refusalLine(r));
      },
    });
  } catch (err) {
    req.sink.push(`${err instanceof Error ? err.message : String(err)}\n`);
    return { exitCode: undefined, timedOut: false, cancelled: false, summary: await req.sink.dump() };
  }
  try {
    child = spawnInGroup(wrapped.file, wrapped.args, {
      cwd: req.cwd,
      env: wrapped.env,
      stdio: ['ignore', 'pipe', 'pipe', ...(wrapped.passFds ?? [])],
    });
  } catch (err) {
    wrapped.dispose();
    req.sink.push(`${SPAWN_FAILED(err instanceof Error ? err.message : String(err))}\n`);
    return { exitCode: undefined, timedOut: false, cancelled: false, summary: await req.sink.dump() };
  }
  options.onSpawn?.(child);
  const onData = (chunk: Buffer): void => {
    // After a timeout or cancel, late output is dropped: the result already carries its notice.
    if (accepting) req.sink.push(chunk);
  };
  const stdout = child.stdout as NonNullable<ChildProcess['stdout']>;
  const stderr = child.stderr as NonNullable<ChildProcess['stderr']>;
  const onStdout = filter ? (chunk: Buffer): void => filter.stdout(chunk) : onData;
  const onStderr = filter ? (chunk: Buffer): void => filter.stderr(chunk) : onData;
  stdout.on('data', onStdout);
  stderr.on('data', onStderr);

  const ended = new Promise<Ended>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ error }));
  });

  let killing: Promise<void> | undefined;
  const guard = new RunGuard(effectiveDeadlineMs(req.timeoutMs), req.signal, () => {
    accepting = false;
    killing = killProcessTree(child, { graceMs: options.killGraceMs });
  });

  const outcome = await ended;
  wrapped.dispose();
  // The command is over once the shell exits; a deadline or abort from here on would only cut the
  // drain short, so it no longer applies.
  guard.dispose();
  if ('error' in outcome) {
    req.sink.push(`${SPAWN_FAILED(outcome.error.message)}\n`);
  } else if (!killing) {
    await drainStreams([stdout, stderr]);
  }
  if (killing) await killing;
  filter?.end();
  stdout.off('data', onStdout);
  stderr.off('data', onStderr);
  stdout.destroy();
  stderr.destroy();

  const pid = child.pid;
  if (!killing && pid !== undefined && groupAlive(pid)) options.onLingering?.(pid);

  const summary = await req.sink.dump(guard.notice());
  if (guard.reason) {
    return { exitCode: undefined, timedOut: guard.reason === 'timeout', cancelled: true, summary };
  }
  if ('error' in outcome) return { exitCode: undefined, timedOut: false, cancelled: false, summary };
  const status = exitStatusOf(outcome.code, outcome.signal);
  return { ...status, timedOut: false, cancelled: false, summary };
}
