// The client-terminal route (docs/ARCHITECTURE.md, Routes): run one command in a client-owned terminal
// (ACP `terminal/*`, or our in-process VS Code bridge) through the `ClientBridge`/`TerminalHandle`
// contract. Every wait on the client is bounded, so a hung client can delay a result by seconds at most,
// never forever.
import type {
  ArtifactStore,
  CallerInfo,
  ClientBridge,
  CreateTerminalParams,
  OutputSinkLike,
  OutputSummary,
  TerminalExitStatus,
  TerminalHandle,
  TerminalOutput,
  TimeoutInfo,
  ToolResult,
  UpdateListener,
} from './contracts';
import { ToolAbortError, ToolError } from './errors';
import { STOPPED } from './humanMessages';
import { CLIENT_OUTPUT_BYTE_LIMIT, DEFAULT_CHUNK_THROTTLE_MS, TAIL_PREVIEW_BYTES } from './output/outputLimits';
import { buildCompletedResult, OUTPUT_TRUNCATED_NOTICE, summaryFromClientOutput } from './output/results';
import { TailBuffer } from './output/tailBuffer';

export const BRIDGE_POLL_INTERVAL_MS = 250;
export const BRIDGE_KILL_GRACE_MS = 1000;
export const BRIDGE_OUTPUT_GRACE_MS = 2000;
export const BRIDGE_RELEASE_GRACE_MS = 1000;
/** A process ended by a signal with no exit code reports 128+9, as a shell would for SIGKILL. */
export const SIGNAL_EXIT_CODE = 137;
export const COMMAND_ABORTED = 'Command aborted';
export const NO_CLIENT_TERMINAL = 'The client does not provide terminals.';

export interface BridgeShell {
  /** Absolute path of the shell binary. */
  command: string;
  /** Arguments before the line; end with the "run this string" flag (`-c`). */
  args: string[];
  /** Profiler/strace prefix prepended as `<prefix> <line>`. */
  prefix?: string;
}

/**
 * ACP `command` is an executable that spec-conformant clients spawn without a shell, so a command
 * line goes in `args` after the shell's own flags (sending the raw line caused ENOENT upstream, #4333).
 */
export function wrapShellLine(line: string, shell: BridgeShell): { command: string; args: string[] } {
  const finalLine = shell.prefix ? `${shell.prefix} ${line}` : line;
  return { command: shell.command, args: [...shell.args, finalLine] };
}

export interface BridgeRunRequest {
  bridge: ClientBridge;
  /** The command line, already cd-stripped and URL-expanded. */
  line: string;
  shell: BridgeShell;
  /** Absolute, checked. */
  cwd: string;
  env?: Record<string, string>;
  timeout: TimeoutInfo;
  /** Pending notices (e.g. the timeout clamp), shown after `(output truncated)`. */
  notices?: string[];
  signal?: AbortSignal;
  onUpdate?: UpdateListener;
  /** Where the final inline cap may save the full text. */
  artifacts?: ArtifactStore;
  /** Used only when the handle can `pipeTo`: the sink then receives the full stream and spills it. */
  createSink?: () => OutputSinkLike;
  /** Who runs it: the bridge draws the command in that caller's terminal. */
  caller?: CallerInfo;
  pollIntervalMs?: number;
  killGraceMs?: number;
  outputGraceMs?: number;
  releaseGraceMs?: number;
  pushThrottleMs?: number;
  /** `off`: the terminal runs outside the OS sandbox. */
  sandbox?: 'off';
}

type Outcome =
  | { kind: 'exit'; status: TerminalExitStatus }
  | { kind: 'failed'; error: unknown }
  | { kind: 'timeout' }
  | { kind: 'abort' };

const noop = (): void => {};

/** Waits for `p` at most `ms`; resolves undefined on timeout. Never leaves a timer behind. */
function bounded<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/** Kill then release a terminal nobody is waiting for (create finished after an abort or timeout). */
function cleanupLate(handle: TerminalHandle, killGraceMs: number, releaseGraceMs: number): void {
  void bounded(handle.kill().catch(noop), killGraceMs)
    .catch(noop)
    .then(() => bounded(handle.release().catch(noop), releaseGraceMs))
    .catch(noop);
}

/**
 * Runs the line in a client terminal. Resolves with a completed result (also for a non-zero exit and,
 * as in oh-my-pi v18, for a timeout: `isError` + `details.timedOut`). Rejects with ToolAbortError
 * (`Command aborted`) on abort, ToolError on a missing exit status, and the client's own error when
 * `waitForExit` rejects. The handle is released exactly once on every path.
 */
export async function runBridgeCommand(req: BridgeRunRequest): Promise<ToolResult> {
  const pollMs = req.pollIntervalMs ?? BRIDGE_POLL_INTERVAL_MS;
  const killGraceMs = req.killGraceMs ?? BRIDGE_KILL_GRACE_MS;
  const outputGraceMs = req.outputGraceMs ?? BRIDGE_OUTPUT_GRACE_MS;
  const releaseGraceMs = req.releaseGraceMs ?? BRIDGE_RELEASE_GRACE_MS;
  const throttleMs = req.pushThrottleMs ?? DEFAULT_CHUNK_THROTTLE_MS;
  const { signal, onUpdate, timeout } = req;
  const started = Date.now();

  // createTerminal cannot be cancelled once sent, so a pre-aborted call must not send it.
  if (signal?.aborted) throw new ToolAbortError(COMMAND_ABORTED);
  if (!req.bridge.capabilities.terminal || !req.bridge.createTerminal) throw new ToolError(NO_CLIENT_TERMINAL);

  // The first of exit / failure / timeout / abort is latched once; every wait below races it, so a
  // wake-up never depends on the next poll tick.
  let outcome: Outcome | undefined;
  let wake: (o: Outcome) => void = noop;
  const outcomeP = new Promise<Outcome>((resolve) => (wake = resolve));
  const latch = (o: Outcome): void => {
    if (outcome) return;
    outcome = o;
    wake(o);
  };

  let handle: TerminalHandle | undefined;
  let killP: Promise<void> | undefined;
  const fireKill = (why: string): Promise<void> => {
    if (!handle) return Promise.resolve();
    // At most one kill per run; a failing kill is not the caller's problem.
    killP ??= handle.kill(why).catch(noop);
    return killP;
  };
  const cancelled = STOPPED.cancelledBy(req.caller?.name || 'the caller');
  const onAbort = (): void => {
    latch({ kind: 'abort' });
    void fireKill(cancelled);
  };

  let timeoutTimer: NodeJS.Timeout | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let pushTimer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let sink: OutputSinkLike | undefined;
  const params: CreateTerminalParams = {
    ...wrapShellLine(req.line, req.shell),
    cwd: req.cwd,
    outputByteLimit: CLIENT_OUTPUT_BYTE_LIMIT,
  };
  if (req.env && Object.keys(req.env).length > 0) {
    params.env = Object.entries(req.env).map(([name, value]) => ({ name, value }));
  }

  try {
    // timeout 0: no timer at all (#4642).
    if (timeout.timeoutMs > 0) timeoutTimer = setTimeout(() => latch({ kind: 'timeout' }), timeout.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });

    const createP = req.bridge.createTerminal(params, {
      ...(req.caller ? { caller: req.caller } : {}),
      ...(req.sandbox ? { sandbox: req.sandbox } : {}),
    });
    const first = await Promise.race([createP.then((h) => ({ kind: 'created' as const, h })), outcomeP]);
    if (first.kind !== 'created') {
      createP.then((h) => cleanupLate(h, killGraceMs, releaseGraceMs), noop);
      if (first.kind === 'abort') throw new ToolAbortError(COMMAND_ABORTED);
      return await finish(emptySummary(), undefined, false);
    }
    handle = first.h;
    const terminalId = handle.terminalId;
    // First, so the host can embed the live terminal before any output arrives.
    onUpdate?.({ content: [], details: { terminalId } });
    if (outcome?.kind === 'abort') void fireKill(cancelled);

    if (handle.pipeTo && req.createSink) {
      sink = req.createSink();
      handle.pipeTo(sink);
    }

    // Pushed output (in-process bridges): cumulative tail, throttled updates.
    const pushed = new TailBuffer(TAIL_PREVIEW_BYTES);
    let pushedAny = false;
    let lastEmit = 0;
    const emitPushed = (): void => {
      pushTimer = undefined;
      if (outcome) return;
      lastEmit = Date.now();
      onUpdate?.({ content: [{ type: 'text', text: pushed.text() }], details: { terminalId } });
    };
    // Pushed text feeds live updates, and stands in for the final output only when no sink holds it.
    if (handle.onOutput && (onUpdate || !sink)) {
      unsubscribe = handle.onOutput((chunk) => {
        if (outcome) return;
        pushed.push(chunk);
        pushedAny = true;
        if (!onUpdate || pushTimer) return;
        const wait = throttleMs - (Date.now() - lastEmit);
        if (wait <= 0) emitPushed();
        else pushTimer = setTimeout(emitPushed, wait);
      });
    }

    handle.waitForExit().then(
      (status) => latch({ kind: 'exit', status }),
      (error: unknown) => latch({ kind: 'failed', error }),
    );

    let lastPolled: TerminalOutput | undefined;
    const h = handle;
    while (!outcome) {
      const tick = new Promise<void>((resolve) => (pollTimer = setTimeout(resolve, pollMs)));
      await Promise.race([tick, outcomeP]);
      clearTimeout(pollTimer);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `latch` sets `outcome` while we await.
      if (outcome) break;
      // Raced against the outcome: a hung `terminal/output` cannot delay exit, timeout or abort.
      const current = h.currentOutput();
      current.catch(noop);
      const polled = await Promise.race([current.then((o) => ({ o }), noop), outcomeP]);
      if (polled && 'o' in polled) {
        lastPolled = polled.o;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `latch` sets `outcome` while we await.
        if (!pushedAny && !outcome) {
          onUpdate?.({ content: [{ type: 'text', text: polled.o.output }], details: { terminalId } });
        }
      }
    }

    const fallback = (): TerminalOutput =>
      lastPolled ?? { output: pushed.text(), truncated: pushed.truncated, exitStatus: null };
    const finalOutput = async (): Promise<TerminalOutput> => {
      try {
        return (await bounded(h.currentOutput(), outputGraceMs)) ?? fallback();
      } catch {
        return fallback();
      }
    };
    const summarize = async (): Promise<{ summary: OutputSummary; truncated: boolean }> => {
      if (sink) return { summary: await sink.dump(), truncated: false };
      const out = await finalOutput();
      return { summary: summaryFromClientOutput(out.output, out.truncated), truncated: out.truncated };
    };

    const o = outcome as Outcome;
    switch (o.kind) {
      case 'abort':
        await bounded(fireKill(cancelled), killGraceMs);
        throw new ToolAbortError(COMMAND_ABORTED);
      case 'failed':
        throw o.error;
      case 'timeout': {
        // Kill first: output read before the kill could miss what the process printed while dying.
        await bounded(fireKill(STOPPED.timedOut(timeout.timeoutSec)), killGraceMs);
        const { summary, truncated } = await summarize();
        return await finish(summary, undefined, truncated, terminalId);
      }
      case 'exit': {
        const { summary, truncated } = await summarize();
        const { exitCode, signal: sig } = o.status;
        const code = exitCode !== null ? exitCode : sig ? SIGNAL_EXIT_CODE : undefined;
        // An undefined code makes buildCompletedResult throw `… Command failed: missing exit status`.
        return await finish(summary, code, truncated, terminalId, sig ?? undefined);
      }
      default: {
        const unreachable: never = o;
        throw new Error(`unexpected bridge outcome ${JSON.stringify(unreachable)}`);
      }
    }
  } finally {
    clearTimeout(timeoutTimer);
    clearTimeout(pollTimer);
    clearTimeout(pushTimer);
    signal?.removeEventListener('abort', onAbort);
    try {
      unsubscribe?.();
    } catch {
      // a broken unsubscribe must not skip the release below
    }
    sink?.dispose();
    if (handle) await bounded(handle.release().catch(noop), releaseGraceMs);
  }

  function finish(
    summary: OutputSummary,
    exitCode: number | undefined,
    truncated: boolean,
    terminalId?: string,
    sig?: string,
  ): Promise<ToolResult> {
    const timedOut = outcome?.kind === 'timeout';
    const notices = [...(truncated ? [OUTPUT_TRUNCATED_NOTICE] : []), ...(req.notices ?? [])];
    return buildCompletedResult({
      summary,
      exitCode,
      notices,
      wallTimeMs: Date.now() - started,
      timeout,
      ...(timedOut ? { timedOut: true } : {}),
      ...(terminalId !== undefined ? { terminalId } : {}),
      ...(req.artifacts ? { artifacts: req.artifacts } : {}),
      ...(sig ? { signal: sig } : {}),
    });
  }
}

function emptySummary(): OutputSummary {
  return summaryFromClientOutput('', false);
}
