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
  SessionLine,
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
  /** The caller's words on what the command does (`description`), for the terminal's header. */
  description?: string;
  /** The line may run in the caller's persistent shell (a bridge that keeps one decides). */
  session?: SessionLine;
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
  const run = new BridgeRun(req);
  // createTerminal cannot be cancelled once sent, so a pre-aborted call must not send it.
  if (req.signal?.aborted) throw new ToolAbortError(COMMAND_ABORTED);
  if (!req.bridge.capabilities.terminal || !req.bridge.createTerminal) throw new ToolError(NO_CLIENT_TERMINAL);
  return run.run(req.bridge.createTerminal.bind(req.bridge));
}

type CreateTerminal = NonNullable<ClientBridge['createTerminal']>;

/**
 * One run of `runBridgeCommand`, as its stages: arm the timeout and the abort, create the terminal,
 * attach the sink and the pushed output, watch for the exit, poll until an outcome, conclude, clean up.
 */
class BridgeRun {
  private readonly pollMs: number;
  private readonly killGraceMs: number;
  private readonly outputGraceMs: number;
  private readonly releaseGraceMs: number;
  private readonly throttleMs: number;
  private readonly started = Date.now();
  private readonly cancelled: string;

  // The first of exit / failure / timeout / abort is latched once; every wait races it, so a wake-up
  // never depends on the next poll tick.
  private outcome: Outcome | undefined;
  private wake: (o: Outcome) => void = noop;
  private readonly outcomeP = new Promise<Outcome>((resolve) => (this.wake = resolve));

  private handle: TerminalHandle | undefined;
  private killP: Promise<void> | undefined;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private pushTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private sink: OutputSinkLike | undefined;

  // Pushed output (in-process bridges): cumulative tail, throttled updates.
  private readonly pushed = new TailBuffer(TAIL_PREVIEW_BYTES);
  private pushedAny = false;
  private lastEmit = 0;
  private lastPolled: TerminalOutput | undefined;

  constructor(private readonly req: BridgeRunRequest) {
    this.pollMs = req.pollIntervalMs ?? BRIDGE_POLL_INTERVAL_MS;
    this.killGraceMs = req.killGraceMs ?? BRIDGE_KILL_GRACE_MS;
    this.outputGraceMs = req.outputGraceMs ?? BRIDGE_OUTPUT_GRACE_MS;
    this.releaseGraceMs = req.releaseGraceMs ?? BRIDGE_RELEASE_GRACE_MS;
    this.throttleMs = req.pushThrottleMs ?? DEFAULT_CHUNK_THROTTLE_MS;
    this.cancelled = STOPPED.cancelledBy(req.caller?.name || 'the caller');
  }

  async run(createTerminal: CreateTerminal): Promise<ToolResult> {
    try {
      this.armTimeoutAndAbort();
      const handle = await this.create(createTerminal);
      if (!handle) return await this.finish(emptySummary(), undefined, false);
      const terminalId = handle.terminalId;
      // First, so the host can embed the live terminal before any output arrives.
      this.req.onUpdate?.({ content: [], details: { terminalId } });
      if (this.outcome?.kind === 'abort') void this.fireKill(this.cancelled);
      this.attachSink(handle);
      this.streamPushed(handle, terminalId);
      this.watchExit(handle);
      await this.poll(handle, terminalId);
      return await this.conclude(handle, terminalId);
    } finally {
      await this.cleanUp();
    }
  }

  private latch(o: Outcome): void {
    if (this.outcome) return;
    this.outcome = o;
    this.wake(o);
  }

  private fireKill(why: string): Promise<void> {
    if (!this.handle) return Promise.resolve();
    // At most one kill per run; a failing kill is not the caller's problem.
    this.killP ??= this.handle.kill(why).catch(noop);
    return this.killP;
  }

  private readonly onAbort = (): void => {
    this.latch({ kind: 'abort' });
    void this.fireKill(this.cancelled);
  };

  /** The timeout (0: no timer at all, #4642) and the caller's abort both latch an outcome. */
  private armTimeoutAndAbort(): void {
    const { timeout, signal } = this.req;
    if (timeout.timeoutMs > 0) this.timeoutTimer = setTimeout(() => this.latch({ kind: 'timeout' }), timeout.timeoutMs);
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /**
   * Asks the client for the terminal, raced against the outcome. Undefined when the timeout came first
   * (a terminal created later is killed and released); throws when the abort came first.
   */
  private async create(createTerminal: CreateTerminal): Promise<TerminalHandle | undefined> {
    const { req } = this;
    const params: CreateTerminalParams = {
      ...wrapShellLine(req.line, req.shell),
      cwd: req.cwd,
      outputByteLimit: CLIENT_OUTPUT_BYTE_LIMIT,
    };
    if (req.env && Object.keys(req.env).length > 0) {
      params.env = Object.entries(req.env).map(([name, value]) => ({ name, value }));
    }
    const createP = createTerminal(params, {
      ...(req.caller ? { caller: req.caller } : {}),
      ...(req.sandbox ? { sandbox: req.sandbox } : {}),
      ...(req.description ? { description: req.description } : {}),
      ...(req.session ? { session: req.session } : {}),
    });
    const first = await Promise.race([createP.then((h) => ({ kind: 'created' as const, h })), this.outcomeP]);
    if (first.kind !== 'created') {
      createP.then((h) => cleanupLate(h, this.killGraceMs, this.releaseGraceMs), noop);
      if (first.kind === 'abort') throw new ToolAbortError(COMMAND_ABORTED);
      return undefined;
    }
    this.handle = first.h;
    return first.h;
  }

  /** When the handle can pipe, the sink receives the full stream (and spills it). */
  private attachSink(handle: TerminalHandle): void {
    if (handle.pipeTo && this.req.createSink) {
      this.sink = this.req.createSink();
      handle.pipeTo(this.sink);
    }
  }

  /** Pushed text feeds live updates, and stands in for the final output only when no sink holds it. */
  private streamPushed(handle: TerminalHandle, terminalId: string): void {
    const { onUpdate } = this.req;
    const emitPushed = (): void => {
      this.pushTimer = undefined;
      if (this.outcome) return;
      this.lastEmit = Date.now();
      onUpdate?.({ content: [{ type: 'text', text: this.pushed.text() }], details: { terminalId } });
    };
    if (handle.onOutput && (onUpdate || !this.sink)) {
      this.unsubscribe = handle.onOutput((chunk) => {
        if (this.outcome) return;
        this.pushed.push(chunk);
        this.pushedAny = true;
        if (!onUpdate || this.pushTimer) return;
        const wait = this.throttleMs - (Date.now() - this.lastEmit);
        if (wait <= 0) emitPushed();
        else this.pushTimer = setTimeout(emitPushed, wait);
      });
    }
  }

  private watchExit(handle: TerminalHandle): void {
    handle.waitForExit().then(
      (status) => this.latch({ kind: 'exit', status }),
      (error: unknown) => this.latch({ kind: 'failed', error }),
    );
  }

  /**
   * Polls the output every tick until an outcome; without pushed output, each poll is an update.
   * A handle that pushes its output (the in-editor bridges) is never polled: its updates arrive as
   * pushes, its result comes from the sink (or the pushed tail), and the run just waits for the outcome.
   */
  private async poll(h: TerminalHandle, terminalId: string): Promise<void> {
    const { onUpdate } = this.req;
    if (h.onOutput) {
      await this.outcomeP;
      return;
    }
    while (!this.outcome) {
      const tick = new Promise<void>((resolve) => (this.pollTimer = setTimeout(resolve, this.pollMs)));
      await Promise.race([tick, this.outcomeP]);
      clearTimeout(this.pollTimer);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `latch` sets `outcome` while we await.
      if (this.outcome) break;
      // Raced against the outcome: a hung `terminal/output` cannot delay exit, timeout or abort.
      const current = h.currentOutput();
      current.catch(noop);
      const polled = await Promise.race([current.then((o) => ({ o }), noop), this.outcomeP]);
      if (polled && 'o' in polled) {
        this.lastPolled = polled.o;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `latch` sets `outcome` while we await.
        if (!this.pushedAny && !this.outcome) {
          onUpdate?.({ content: [{ type: 'text', text: polled.o.output }], details: { terminalId } });
        }
      }
    }
  }

  /** The result of the outcome: the abort and a failure throw; a timeout and an exit complete. */
  private async conclude(h: TerminalHandle, terminalId: string): Promise<ToolResult> {
    const o = this.outcome as Outcome;
    switch (o.kind) {
      case 'abort':
        await bounded(this.fireKill(this.cancelled), this.killGraceMs);
        throw new ToolAbortError(COMMAND_ABORTED);
      case 'failed':
        throw o.error;
      case 'timeout': {
        // Kill first: output read before the kill could miss what the process printed while dying.
        await bounded(this.fireKill(STOPPED.timedOut(this.req.timeout.timeoutSec)), this.killGraceMs);
        const { summary, truncated } = await this.summarize(h);
        return await this.finish(summary, undefined, truncated, terminalId);
      }
      case 'exit': {
        const { summary, truncated } = await this.summarize(h);
        const { exitCode, signal: sig } = o.status;
        const code = exitCode !== null ? exitCode : sig ? SIGNAL_EXIT_CODE : undefined;
        // An undefined code makes buildCompletedResult throw `… Command failed: missing exit status`.
        return await this.finish(summary, code, truncated, terminalId, sig ?? undefined);
      }
      default: {
        const unreachable: never = o;
        throw new Error(`unexpected bridge outcome ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** The final output: the sink's, else the client's (bounded), else what was last seen. */
  private async summarize(h: TerminalHandle): Promise<{ summary: OutputSummary; truncated: boolean }> {
    if (this.sink) return { summary: await this.sink.dump(), truncated: false };
    const fallback = (): TerminalOutput =>
      this.lastPolled ?? { output: this.pushed.text(), truncated: this.pushed.truncated, exitStatus: null };
    let out: TerminalOutput;
    try {
      out = (await bounded(h.currentOutput(), this.outputGraceMs)) ?? fallback();
    } catch {
      out = fallback();
    }
    return { summary: summaryFromClientOutput(out.output, out.truncated), truncated: out.truncated };
  }

  /** Every path ends here: timers cleared, listeners removed, the sink disposed, the handle released once. */
  private async cleanUp(): Promise<void> {
    clearTimeout(this.timeoutTimer);
    clearTimeout(this.pollTimer);
    clearTimeout(this.pushTimer);
    this.req.signal?.removeEventListener('abort', this.onAbort);
    try {
      this.unsubscribe?.();
    } catch {
      // a broken unsubscribe must not skip the release below
    }
    this.sink?.dispose();
    if (this.handle) await bounded(this.handle.release().catch(noop), this.releaseGraceMs);
  }

  private finish(
    summary: OutputSummary,
    exitCode: number | undefined,
    truncated: boolean,
    terminalId?: string,
    sig?: string,
  ): Promise<ToolResult> {
    const { req } = this;
    const timedOut = this.outcome?.kind === 'timeout';
    const notices = [...(truncated ? [OUTPUT_TRUNCATED_NOTICE] : []), ...(req.notices ?? [])];
    return buildCompletedResult({
      summary,
      exitCode,
      notices,
      wallTimeMs: Date.now() - this.started,
      timeout: req.timeout,
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
