// The bash tool, end to end: every call goes through these stages in this order and ends in one result
// shape whatever ran it (docs/ARCHITECTURE.md, Pipeline and Routes).
//   validate → cd prefix → async gate → policy gate (+ approval) → interceptor → internal URLs → cwd
//   → timeout clamp → route (async job → auto-background → client bridge → PTY → local executor,
//     each after the environment stage) → result
// Tool-level failures never throw out of `run`: they come back as `isError` results.
import { matchedRuleName } from './policy/rules/ruleLayerLabel';
import type { WordExpander } from './policy/analysis/wordExpansion';
import * as path from 'node:path';
import { BridgeShell, runBridgeCommand } from './bridgeRoute';
import { autoBackgroundApplies, autoBackgroundWaitMs } from './autoBackground';
import { extractCdPrefix } from './cdPrefix';
import type {
  Approver,
  ArtifactStore,
  BashSettings,
  CallerInfo,
  ClientBridge,
  ExecResult,
  JobInfo,
  JobManager,
  LocalExecutor,
  OutputSinkLike,
  OutputSinkOptions,
  PolicyDecision,
  PtyExecutor,
  ShellAnalysis,
  ShellAnalyzer,
  TimeoutInfo,
  ToolResult,
  UpdateListener,
  UrlResolver,
} from './contracts';
import { resolveCwd, resolveCwdPath } from './cwd';
import { ToolAbortError, ToolError } from './errors';
import { parseBashInput, type BashInput } from './input';
import { jobsAtCapacityMessage } from './jobLimits';
import { Interceptor } from './interceptor';
import { expandCwdUrl, expandEnvUrls, expandInternalUrls, withArtifactScheme, withLocalScheme } from './internalUrls';
import { OutputSink } from './output/outputSink';
import { decide } from './policy/policy';
import { gateDecision, passPolicyGate, type DecidedBy, type GateVerdict } from './policy/policyGate';
import { guardRewrite } from './policy/checks/rewriteGuard';
import {
  buildBackgroundStartResult,
  buildCompletedResult,
  errorResult,
  PTY_UNAVAILABLE_NOTICE,
} from './output/results';
import { streamTailUpdates, TailBuffer } from './output/tailBuffer';
import { clampTimeout } from './timeout';
import { withUnsets, type EnvPreflight } from './envPreflight';
import { findViolations, violationNotice } from './sandboxRefusals';
import { fenceRefusals, READ_ONLY_NO_SANDBOX, readOnlyRefusalNotice } from './readOnlyRefusals';
import { readOnlyLine, type ReadOnlyLine } from './policy/checks/readerClass';

export const ASYNC_JOBS_UNAVAILABLE = 'Async job manager unavailable for this session.';
export const COMMAND_ABORTED = 'Command aborted';
/** A local/PTY cancel whose output already carries the executor's own notice keeps it as is. */
export const CANCELLED_NOTICE_LINE = '[Command cancelled]';
export const ABORTED_NOTICE_LINE = '[Command aborted]';
/** Kind of the artifact that holds a run's full output. */
export const OUTPUT_ARTIFACT_KIND = 'bash';
/**
 * Used for client terminals when the host does not say which shell to wrap the line in. Not a login
 * shell, as the local executor in the editor (vscode/session/executorHolder.ts): the host's
 * environment is the user's login environment already, and re-running the profiles for every
 * command cost 0.6 s per command on the test machine (a stuck profile would hang every call).
 */
export const DEFAULT_BRIDGE_SHELL: BridgeShell = { command: '/bin/bash', args: ['-c'] };

/** The OS sandbox as the pipeline sees it (src/exec/sandbox/sandboxRuntime.ts implements it). */
export interface PipelineSandbox {
  /** How a call would run; throws (with the message to show) when the sandbox is on but cannot start. */
  levelFor(sandbox?: 'off'): 'sandboxed' | 'contained' | 'plain';
  /** `agentBash.sandbox.autoApprove`: prompt-level commands run without asking when sandboxed. */
  autoApprove(): boolean;
  /**
   * Optional: a look at the protected paths before a sandboxed run; `finish()` after it says what
   * the sandbox skipped, what changed anyway and which limit the output shows hit, with the notices.
   */
  watch?(): SandboxWatch;
  /**
   * Optional: whether an auto-approved read would run under the read-only fence here, and why not
   * (exec/sandbox/readOnly/readOnlySupport.ts). Absent: the fence is not enforced anywhere.
   */
  readOnly?(sandbox?: 'off'): ReadOnlyCapability;
}

/** Whether the kernel holds an auto-approved read to reading here, and why not. */
export interface ReadOnlyCapability {
  enforced: boolean;
  /** Why not, in a person's words (`the sandbox is off`, `the kernel's Landlock ABI is 3 …`). */
  why?: string;
}

export interface SandboxWatch {
  finish(output: string): { skipped: string[]; protectedChanged: string[]; limits: string[]; notices: string[] };
}

/**
 * The sandbox facts the policy gate needs for one call: how it would run, and whether a prompt may
 * run without asking. A sandbox that is on but cannot start yields the error to show (nothing runs).
 */
export function sandboxForGate(sandbox: PipelineSandbox | undefined, off: boolean): {
  level?: 'sandboxed' | 'contained' | 'plain';
  gate?: { active: boolean; autoApprove: boolean };
  error?: string;
} {
  if (!sandbox) return {};
  try {
    const level = sandbox.levelFor(off ? 'off' : undefined);
    return { level, gate: { active: level === 'sandboxed', autoApprove: sandbox.autoApprove() } };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** Tells the caller the command starts (a listener's failure never stops the run). */
function notifyStart(opts: BashRunOptions, call: CallRecord, level: SandboxLevel | undefined): void {
  if (!opts.onStart) return;
  const started: RunStart = {
    ...(call.verdict ? { decision: call.verdict } : {}),
    ...(level ? { sandbox: level } : {}),
    ...(call.readOnly ? { readOnly: call.readOnly.capability.enforced ? ('enforced' as const) : ('not-enforced' as const) } : {}),
  };
  try {
    opts.onStart(started);
  } catch {
    // History is a view of the run, never a reason for it to fail.
  }
}

/** What a result's details say of the gate: the decision, who let it run, and the user's answer when asked. */
/** The deny and prompt rules that matched besides the deciding one (layeredRules.ts), for History. */
function otherRestrictive(d: GateVerdict['decision']): string[] {
  return (d.restrictive ?? []).filter((m) => m.rule !== d.rule).map(matchedRuleName);
}

function verdictDetails(gate: GateVerdict): NonNullable<ToolResult['details']['decision']> {
  const d = gate.decision;
  const out: NonNullable<ToolResult['details']['decision']> = { decision: d.decision, reason: d.reason, kind: d.kind };
  if (d.rule) out.rule = d.rule.match;
  if (d.rule && d.layer) out.layer = d.layer;
  if (d.rule && d.layerSource !== undefined) out.layerSource = d.layerSource;
  const also = otherRestrictive(d);
  if (also.length) out.alsoMatched = also;
  if (gate.kind === 'run') {
    out.decidedBy = gate.decidedBy;
    // A rule or the sandbox let it run: no answer.
    const answers: Partial<Record<DecidedBy, typeof out.answer>> = { 'user-once': 'allow', 'user-session': 'session', 'user-always': 'always' };
    const answer = answers[gate.decidedBy];
    if (answer) out.answer = answer;
  } else if (gate.kind === 'refuse' && gate.by === 'user') {
    out.answer = 'deny';
  }
  return out;
}

export interface BashPipelineDeps {
  settings: () => BashSettings;
  analyzer: ShellAnalyzer;
  approver: Approver;
  artifacts: ArtifactStore;
  urlResolver?: UrlResolver;
  bridge?: ClientBridge;
  executor: LocalExecutor;
  pty?: PtyExecutor;
  jobs?: JobManager;
  /** Whether a dedicated tool exists (interceptor rules apply only then). Absent: none does. */
  toolAvailable?: (tool: string) => boolean;
  sessionCwd: () => string;
  workspaceRoots: () => string[];
  sessionId: string;
  /** Optional: the shell a client terminal wraps the line in (default `/bin/bash -l -c`, or settings.shell). */
  bridgeShell?: () => BridgeShell;
  /** Optional: client-terminal poll interval (default 250 ms). */
  bridgePollIntervalMs?: number;
  /** Optional: how sinks are made (default `new OutputSink(opts)`). */
  createSink?: (opts: OutputSinkOptions) => OutputSinkLike;
  /** Optional: the environment stage (direnv) every route passes; absent, the caller's env is used as is. */
  environment?: EnvPreflight;
  /** Optional: the OS sandbox (absent: commands run as the executors start them). */
  sandbox?: PipelineSandbox;
  /** Optional: bash's own expansion of words for the policy (absent: words with glob/brace/tilde syntax ask). */
  expander?: WordExpander;
}

export interface BashRunOptions {
  signal?: AbortSignal;
  onUpdate?: UpdateListener;
  /** Persistent-shell key (default: the session id). */
  sessionKey?: string;
  /** Answers prompt-level decisions for this call instead of `deps.approver` (a caller that asked already). */
  approver?: Approver;
  /** Who runs the command (approval dialogs, terminal, history). */
  caller?: CallerInfo;
  /**
   * A caller that cannot wait longer (an MCP client that sent no progress token times the request out
   * at 60 s): a foreground run still going after this long becomes a background job and the call
   * answers with its id. Client-terminal runs stay in their terminal.
   */
  backgroundAfterMs?: number;
  /**
   * The command passed every check and is about to run (History shows it as running from here):
   * the policy verdict, how it is sandboxed, and whether it runs under the read-only fence.
   */
  onStart?: (started: RunStart) => void;
}

/** What is known of a call once it starts running (BashRunOptions.onStart). */
export interface RunStart {
  decision?: NonNullable<ToolResult['details']['decision']>;
  sandbox?: SandboxLevel;
  readOnly?: 'enforced' | 'not-enforced';
}

interface Prepared {
  command: string;
  cwd: string;
  env?: Record<string, string>;
  /** From the environment stage: inherited variables to unset before the command. */
  unset?: string[];
  timeout: TimeoutInfo;
  notices: string[];
  sandbox?: 'off';
  /** The caller's words on what the command does, for its terminal header. */
  description?: string;
  /** An auto-approved read, run under the read-only fence (readerClass.ts). */
  readOnly?: ReadOnlyLine;
}

type SandboxLevel = 'sandboxed' | 'contained' | 'plain';

/** What `run` keeps across its stages for the result, whichever stage ends the call. */
interface CallRecord {
  verdict?: NonNullable<ToolResult['details']['decision']>;
  /** An auto-approved read: its programs, and whether the fence holds it here. */
  readOnly?: { line: ReadOnlyLine; capability: ReadOnlyCapability };
}

export class BashPipeline {
  private readonly interceptorRules = new Interceptor();

  constructor(private readonly deps: BashPipelineDeps) {}

  /** The policy verdict for `command` run in `cwd` (default: the session cwd), without running it. */
  /** `trace`: keep every check that ran (PolicyDecision.trace, SegmentDecision.trace). */
  explain(command: string, cwd?: string, env?: Record<string, string>, opts: { trace?: boolean } = {}): PolicyDecision {
    const at = this.policyCwd(cwd);
    return gateDecision((c, where) => this.decide(c, where, opts), { command, cwd: at, ...(env ? { env } : {}) });
  }

  /**
   * The rules' decision on the command text alone, in `cwd` (default: the session cwd); hosts that
   * create terminals pass it to the policy gate, which adds the env risk. Step 6 of `run` rewrites
   * internal URLs: a rewrite that changes which commands run is decided again, the stricter verdict wins.
   */
  decide(command: string, cwd?: string, opts: { trace?: boolean } = {}): PolicyDecision {
    const layers = this.deps.settings().ruleLayers;
    const ctx = { cwd: this.policyCwd(cwd), workspaceRoots: this.deps.workspaceRoots(), expander: this.deps.expander, ...(opts.trace ? { trace: true } : {}) };
    const analysis = this.deps.analyzer.analyze(command);
    return guardRewrite(analysis, this.rewrittenAnalysis(command), decide(analysis, layers, ctx), (a) => decide(a, layers, ctx));
  }

  async run(rawInput: unknown, opts: BashRunOptions = {}): Promise<ToolResult> {
    // The verdict is kept for the result even when a later stage refuses or fails.
    const call: CallRecord = {};
    try {
      const settings = this.deps.settings();
      const input = this.validate(rawInput, settings);
      const cd = this.cdPrefix(input);
      this.asyncGate(input);
      this.warmSession(input, opts);
      const sandbox = await this.policyGate(input, opts, call);
      this.interceptor(input.command, cd.command, settings, opts);
      const urls = this.internalUrls(cd.command, input.env, cd.cwd);
      const cwd = await this.cwd(urls.cwd);
      const prepared = this.timeout(input, settings, urls.command, urls.env, cwd);
      if (call.readOnly?.capability.enforced) prepared.readOnly = call.readOnly.line;
      if (opts.signal?.aborted) throw new ToolAbortError(COMMAND_ABORTED);
      notifyStart(opts, call, sandbox.level);
      const result = await this.route(prepared, input.pty, input.async, input.command, opts);
      result.details.decision = call.verdict;
      if (sandbox.level) withSandboxDetails(result, sandbox.level, sandbox.watch);
      if (call.readOnly) withReadOnlyDetails(result, call.readOnly.capability);
      return result;
    } catch (err) {
      const result = errorResult(err);
      if (call.verdict) result.details.decision = call.verdict;
      return result;
    }
  }

  /** 1. Validate the input (also refuses `async` when async is disabled). */
  private validate(rawInput: unknown, settings: BashSettings): BashInput {
    return parseBashInput(rawInput, { asyncEnabled: settings.asyncEnabled });
  }

  /** 2. A leading `cd dir &&` becomes the cwd when none was given. */
  private cdPrefix(input: BashInput): { command: string; cwd: string | undefined } {
    const cd = input.cwd === undefined ? extractCdPrefix(input.command) : undefined;
    return { command: cd ? cd.command : input.command, cwd: input.cwd ?? cd?.cwd };
  }

  /** 3. The async gate: an explicit background run needs a job manager. */
  private asyncGate(input: BashInput): void {
    if (input.async && !this.deps.jobs) throw new ToolError(ASYNC_JOBS_UNAVAILABLE);
  }

  /**
   * 4. The policy gate on the raw command (the `cd` included), where it was asked to run. The sandbox
   * composes with it: deny stays deny, `sandbox: "off"` asks, autoApprove only inside. Records the
   * verdict in `call`; returns how the command will be sandboxed.
   */
  private async policyGate(input: BashInput, opts: BashRunOptions, call: CallRecord): Promise<{ level?: SandboxLevel; watch?: SandboxWatch }> {
    const { deps } = this;
    const sandboxOff = input.sandbox === 'off';
    const box = sandboxForGate(deps.sandbox, sandboxOff);
    const gate = await passPolicyGate(
      { decide: (c, at) => this.decide(c, at), approver: opts.approver ?? deps.approver },
      {
        command: input.command,
        cwd: this.policyCwd(input.cwd),
        ...(input.env ? { env: input.env } : {}),
        ...(opts.caller ? { caller: opts.caller } : {}),
        ...(input.description ? { description: input.description } : {}),
        ...(box.gate ? { sandbox: box.gate } : {}),
        sandboxOff,
        ...(input.sandbox === 'write' ? { writeAsked: true } : {}),
        ...fenceNote(deps.sandbox, box.level, sandboxOff),
      },
      opts.signal,
    );
    call.verdict = verdictDetails(gate);
    // A line a rule let run without asking anyone, whose every program reads: the kernel keeps it a read.
    const line = gate.kind === 'run' && gate.decidedBy === 'rule' ? readOnlyLine(gate.decision) : undefined;
    if (line) call.readOnly = { line, capability: readOnlyCapabilityOf(deps.sandbox, box.level, sandboxOff) };
    if (gate.kind === 'refuse') throw new ToolError(gate.message);
    if (gate.kind === 'aborted') throw new ToolAbortError(COMMAND_ABORTED);
    // The sandbox is on but cannot start: nothing runs (a denial above still said why first).
    if (box.error !== undefined) throw new ToolError(box.error);
    const watch = box.level === 'sandboxed' && !input.async ? deps.sandbox?.watch?.() : undefined;
    return { ...(box.level ? { level: box.level } : {}), ...(watch ? { watch } : {}) };
  }

  /** 5. The interceptor: the raw command, then the cd-stripped one. */
  private interceptor(raw: string, command: string, settings: BashSettings, opts: BashRunOptions): void {
    if (!settings.interceptor.enabled) return;
    const { deps } = this;
    const commands = [{ command: raw, analysis: deps.analyzer.analyze(raw) }];
    if (command !== raw) commands.push({ command, analysis: deps.analyzer.analyze(command) });
    const blocked = this.interceptorRules.check({
      raw,
      commands,
      rules: settings.interceptor.patterns,
      toolAvailable: deps.toolAvailable ?? (() => false),
      sessionKey: opts.sessionKey ?? deps.sessionId,
    });
    if (blocked) throw new ToolError(blocked);
  }

  /** 6. Internal URLs, after the checks (`local://` creates directories). */
  private internalUrls(command: string, env: Record<string, string> | undefined, cwd: string | undefined): {
    command: string;
    env: Record<string, string> | undefined;
    cwd: string | undefined;
  } {
    const resolver = this.resolver();
    return {
      command: expandInternalUrls(command, { resolver, escape: true, ensureLocalParentDirs: true }),
      env: env ? expandEnvUrls(env, resolver) : undefined,
      cwd: cwd === undefined ? undefined : expandCwdUrl(cwd, resolver),
    };
  }

  /** 7. The working directory: the one asked for, else the session's. */
  private cwd(cwd: string | undefined): Promise<string> {
    return resolveCwd(cwd, this.deps.sessionCwd());
  }

  /** 8. The timeout, clamped to the settings' maximum; the command as the routes receive it. */
  private timeout(input: BashInput, settings: BashSettings, command: string, env: Record<string, string> | undefined, cwd: string): Prepared {
    const timeout = clampTimeout(input.timeout, settings.maxTimeout);
    const prepared: Prepared = { command, cwd, timeout, notices: timeout.notice ? [timeout.notice] : [] };
    if (env) prepared.env = env;
    if (input.sandbox === 'off') prepared.sandbox = input.sandbox;
    if (input.description) prepared.description = input.description;
    return prepared;
  }

  /** 9. The route (async job → auto-background → client bridge → PTY → local executor). */
  private async route(p: Prepared, pty: boolean, async: boolean, raw: string, opts: BashRunOptions): Promise<ToolResult> {
    const { deps } = this;
    const bridge = deps.bridge;
    // Background runs (explicit or automatic) pass the environment stage inside the job, so the call
    // returns at once; foreground routes pass it here.
    if (async) return this.startJob(p, raw);
    const useBridge = !!(bridge?.capabilities.terminal && bridge.createTerminal && !pty);
    const auto = deps.settings().autoBackground;
    const thresholdMs = auto.enabled ? Math.min(auto.thresholdMs, opts.backgroundAfterMs ?? Infinity) : opts.backgroundAfterMs;
    // The bridge wins over auto-background: the client shows the live terminal instead.
    // A call whose own deadline comes first stays in the foreground and reports its timeout.
    const backgroundable = thresholdMs !== undefined && autoBackgroundApplies(thresholdMs, p.timeout.timeoutMs);
    if (thresholdMs !== undefined && backgroundable && !pty && !useBridge && deps.jobs?.waitFor && !deps.jobs.atCapacity()) {
      // A caller that only cannot wait long (no progress token) keeps its session: the job runs in
      // the caller's persistent shell. Auto-background chosen in the settings runs in a fresh one.
      const sessionKey = auto.enabled ? undefined : (opts.sessionKey ?? this.deps.sessionId);
      return this.autoBackground(deps.jobs, p, raw, opts, thresholdMs, sessionKey);
    }
    p = await this.withEnvironment(p, opts.signal);
    if (opts.signal?.aborted) throw new ToolAbortError(COMMAND_ABORTED);
    if (bridge && useBridge) {
      const settings = deps.settings();
      return runBridgeCommand({
        bridge,
        line: withUnsets(p.command, p.unset),
        shell: this.bridgeShell(settings),
        cwd: p.cwd,
        ...(p.env ? { env: p.env } : {}),
        timeout: p.timeout,
        notices: p.notices,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onUpdate ? { onUpdate: opts.onUpdate } : {}),
        artifacts: deps.artifacts,
        createSink: () => this.makeSink(),
        ...(opts.caller ? { caller: opts.caller } : {}),
        ...(deps.bridgePollIntervalMs !== undefined ? { pollIntervalMs: deps.bridgePollIntervalMs } : {}),
        ...(p.sandbox ? { sandbox: p.sandbox } : {}),
        ...(p.description ? { description: p.description } : {}),
        session: { key: this.callerSessionKey(opts), line: p.command, ...(p.unset?.length ? { unset: p.unset } : {}), ...(p.readOnly ? { readOnly: p.readOnly } : {}) },
      });
    }
    if (pty) {
      if (deps.pty) return this.runPty(deps.pty, p, opts);
      p.notices.push(PTY_UNAVAILABLE_NOTICE);
    }
    return this.runLocal(p, opts);
  }

  /** The environment stage: the project's env (direnv) under the caller's, and what it unsets. */
  private async withEnvironment(p: Prepared, signal: AbortSignal | undefined): Promise<Prepared> {
    const stage = this.deps.environment;
    if (!stage) return p;
    const out = await stage({
      cwd: p.cwd,
      ...(p.env ? { env: p.env } : {}),
      timeoutMs: p.timeout.timeoutMs,
      ...(signal ? { signal } : {}),
      ...(p.sandbox ? { sandbox: p.sandbox } : {}),
    });
    const next: Prepared = { ...p };
    if (out.env) next.env = out.env;
    if (out.unset?.length) next.unset = out.unset;
    return next;
  }

  private runLocal(p: Prepared, opts: BashRunOptions): Promise<ToolResult> {
    const onChunk = opts.onUpdate ? streamTailUpdates(new TailBuffer(), opts.onUpdate) : undefined;
    return this.execLocal(p, this.makeSink(onChunk), opts.sessionKey ?? this.deps.sessionId, opts.signal);
  }

  /** One run on the local executor into `sink` (disposed after), mapped to a result. */
  private async execLocal(p: Prepared, sink: OutputSinkLike, sessionKey: string, signal?: AbortSignal): Promise<ToolResult> {
    const started = Date.now();
    try {
      const res = await this.deps.executor.run({
        command: p.command,
        cwd: p.cwd,
        ...(p.env ? { env: p.env } : {}),
        ...(p.unset ? { unset: p.unset } : {}),
        timeoutMs: p.timeout.timeoutMs,
        ...(signal ? { signal } : {}),
        sessionKey,
        sink,
        ...(p.sandbox ? { sandbox: p.sandbox } : {}),
        ...(p.readOnly ? { readOnly: p.readOnly } : {}),
      });
      return await this.completed(res, p, Date.now() - started, signal);
    } finally {
      sink.dispose();
    }
  }

  private async runPty(pty: PtyExecutor, p: Prepared, opts: BashRunOptions): Promise<ToolResult> {
    const sink = this.makeSink();
    const started = Date.now();
    try {
      const session = pty.start({
        command: p.command,
        cwd: p.cwd,
        ...(p.env ? { env: p.env } : {}),
        ...(p.unset ? { unset: p.unset } : {}),
        timeoutMs: p.timeout.timeoutMs,
        ...(opts.signal ? { signal: opts.signal } : {}),
        sink,
        ...(p.sandbox ? { sandbox: p.sandbox } : {}),
        ...(p.readOnly ? { readOnly: p.readOnly } : {}),
      });
      return await this.completed(await session.result, p, Date.now() - started, opts.signal);
    } finally {
      sink.dispose();
    }
  }

  private startJob(p: Prepared, raw: string): ToolResult {
    const jobs = this.deps.jobs;
    if (!jobs) throw new ToolError(ASYNC_JOBS_UNAVAILABLE);
    if (jobs.atCapacity()) throw new ToolError(jobsAtCapacityMessage(this.deps.settings().asyncMaxJobs));
    const info = this.registerJob(jobs, p, raw);
    return buildBackgroundStartResult({ jobId: info.id, timeout: p.timeout, notices: p.notices });
  }

  /**
   * Auto-background: the command runs as a job whose completion is held back; if it ends within
   * the wait its result comes back inline, otherwise the call returns a background-start result with
   * the latest output and the completion is delivered later.
   */
  private async autoBackground(jobs: JobManager, p: Prepared, raw: string, opts: BashRunOptions, thresholdMs: number, sessionKey?: string): Promise<ToolResult> {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- taken only to check they exist; called with `.call(jobs)` below.
    const { waitFor, resumeDelivery, consumeResult } = jobs;
    if (!waitFor || !resumeDelivery || !consumeResult) throw new Error('auto-background needs waitFor, resumeDelivery and consumeResult');
    let latest = '';
    let forwarding = true;
    const info = this.registerJob(
      jobs,
      p,
      raw,
      { suppressDelivery: true },
      (tail) => {
        latest = tail;
        if (forwarding) opts.onUpdate?.({ content: [{ type: 'text', text: tail }], details: {} });
      },
      sessionKey,
    );
    const waitMs = autoBackgroundWaitMs(thresholdMs, p.timeout.timeoutMs);
    const outcome = waitMs === 0 ? 'timer' : await waitFor.call(jobs, info.id, waitMs, opts.signal);
    forwarding = false;
    if (outcome === 'done') {
      const result = consumeResult.call(jobs, info.id);
      if (result) {
        // Handed over inline: it is a foreground result, not a job's.
        const details = { ...result.details };
        delete details.async;
        return { ...result, details };
      }
    }
    if (outcome === 'aborted') {
      jobs.cancel(info.id);
      throw new ToolAbortError(latest.trim() ? latest : COMMAND_ABORTED);
    }
    resumeDelivery.call(jobs, info.id);
    return buildBackgroundStartResult({ jobId: info.id, timeout: p.timeout, notices: p.notices, preview: latest });
  }

  private registerJob(
    jobs: JobManager,
    p: Prepared,
    raw: string,
    options?: { suppressDelivery?: boolean },
    onTail?: (tail: string) => void,
    sessionKey?: string,
  ): JobInfo {
    // The job manager cuts the command to a label.
    return jobs.register(
      raw,
      async (ctx) => {
        const prepared = await this.withEnvironment(p, ctx.signal);
        const tail = new TailBuffer();
        const sink = this.makeSink((text) => {
          tail.push(text);
          ctx.onProgress(tail.text());
          onTail?.(tail.text());
        });
        // A fresh shell per job: a background command must not share (or block) the foreground shell.
        // With `sessionKey` (a call that becomes a job only if it outlives the caller's patience) the
        // caller's persistent shell runs it; while it runs, the session's next call gets a shell of its own.
        return this.execLocal(prepared, sink, sessionKey ?? `${this.deps.sessionId}:async:${ctx.jobId}`, ctx.signal);
      },
      options,
    );
  }

  /** The result of a local or PTY run. Throws the cancel outcomes; the caller turns them into results. */
  private completed(res: ExecResult, p: Prepared, wallTimeMs: number, signal?: AbortSignal): Promise<ToolResult> {
    if (res.cancelled && !res.timedOut) {
      const out = res.summary.output;
      const text = out.startsWith(CANCELLED_NOTICE_LINE) ? out : out ? `${out}\n\n${ABORTED_NOTICE_LINE}` : COMMAND_ABORTED;
      // A kill without an aborted signal (the user closed the PTY) is a failure, not a cancellation.
      throw signal?.aborted ? new ToolAbortError(text) : new ToolError(text);
    }
    return buildCompletedResult({
      summary: res.summary,
      exitCode: res.exitCode,
      notices: p.notices,
      wallTimeMs,
      timeout: p.timeout,
      ...(res.timedOut ? { timedOut: true } : {}),
      artifacts: this.deps.artifacts,
      ...(res.signal ? { signal: res.signal } : {}),
    });
  }

  private makeSink(onChunk?: (text: string) => void): OutputSinkLike {
    const settings = this.deps.settings();
    const opts: OutputSinkOptions = {
      headBytes: settings.artifactHeadBytes * 1024,
      maxColumns: settings.outputMaxColumns,
    };
    if (onChunk) opts.onChunk = onChunk;
    try {
      const artifact = this.deps.artifacts.allocate(OUTPUT_ARTIFACT_KIND);
      opts.artifactPath = artifact.path;
      opts.artifactId = artifact.id;
    } catch {
      // Best effort: without an artifact the output is still bounded, only the spill is lost.
    }
    return this.deps.createSink ? this.deps.createSink(opts) : new OutputSink(opts);
  }

  /**
   * A line bound for the client bridge: its caller's persistent shell starts now, while the policy
   * decides (and the user answers), not after. It runs nothing; a refused line leaves an idle shell.
   */
  private warmSession(input: BashInput, opts: BashRunOptions): void {
    const { bridge } = this.deps;
    if (!bridge?.warm || !bridge.capabilities.terminal || input.pty || input.async) return;
    bridge.warm({ key: this.callerSessionKey(opts), cwd: this.deps.sessionCwd(), ...(input.sandbox === 'off' ? { sandbox: input.sandbox } : {}) });
  }

  /** The persistent shell a caller's bridge commands share: one per caller session. */
  private callerSessionKey(opts: BashRunOptions): string {
    if (opts.sessionKey !== undefined) return opts.sessionKey;
    const { caller } = opts;
    return caller ? `${this.deps.sessionId}:${caller.kind}:${caller.sessionId}` : this.deps.sessionId;
  }

  private bridgeShell(settings: BashSettings): BridgeShell {
    if (this.deps.bridgeShell) return this.deps.bridgeShell();
    return {
      command: settings.shell.path ?? DEFAULT_BRIDGE_SHELL.command,
      args: settings.shell.args ?? DEFAULT_BRIDGE_SHELL.args,
    };
  }

  private resolver(): UrlResolver {
    const { artifacts } = this.deps;
    return withLocalScheme(withArtifactScheme(this.deps.urlResolver, (id) => artifacts.pathOf(id)), path.join(artifacts.dir, 'local'));
  }

  /** The analysis of `command` with internal URLs expanded (no side effects), when that changes it. */
  private rewrittenAnalysis(command: string): ShellAnalysis | undefined {
    try {
      const expanded = expandInternalUrls(command, { resolver: this.resolver(), escape: true });
      return expanded === command ? undefined : this.deps.analyzer.analyze(expanded);
    } catch {
      return undefined; // an unresolvable URL fails in step 6 with its own message; nothing runs
    }
  }

  /** Where relative paths in the command resolve, for the policy; lexical, no side effects. */
  private policyCwd(cwd: string | undefined): string {
    const session = this.deps.sessionCwd();
    if (cwd === undefined) return path.resolve(session);
    try {
      return resolveCwdPath(expandCwdUrl(cwd, this.resolver()), session);
    } catch {
      // An unusable cwd fails later with its own message; the policy judges against the session cwd.
      return path.resolve(session);
    }
  }
}

/**
 * Records how the command ran and, for a sandboxed run, what the sandbox refused (read from the
 * output), with the notice that says how to retry outside it. Nothing is retried here.
 */
export function withSandboxDetails(result: ToolResult, level: 'sandboxed' | 'contained' | 'plain', watch?: SandboxWatch): ToolResult {
  result.details.sandbox = { level };
  if (level !== 'sandboxed') return result;
  const output = result.content.map((c) => c.text).join('\n');
  const refused = findViolations(output);
  const notices: string[] = [];
  const notice = violationNotice(refused);
  if (notice) {
    result.details.sandbox.refused = refused;
    notices.push(notice);
  }
  if (watch) {
    const seen = watch.finish(output);
    if (seen.skipped.length) result.details.sandbox.skipped = seen.skipped;
    if (seen.protectedChanged.length) result.details.sandbox.protectedChanged = seen.protectedChanged;
    if (seen.limits.length) result.details.sandbox.limits = seen.limits;
    notices.push(...seen.notices);
  }
  for (const text of notices) {
    const last = result.content.at(-1);
    if (last) last.text = `${last.text}\n\n${text}`;
    else result.content.push({ type: 'text', text });
  }
  return result;
}

/**
 * The read-only plan of a gate's verdict for hosts that start a terminal themselves (ACP
 * `terminal/create`, the API's `createTerminal`): a line a rule let run without asking, every program
 * a reader, where the fence holds. Undefined otherwise (it then runs as any command would).
 */
export function fencedReadOf(verdict: GateVerdict, sandbox: PipelineSandbox | undefined, off: boolean): ReadOnlyLine | undefined {
  if (verdict.kind !== 'run' || verdict.decidedBy !== 'rule' || off) return undefined;
  const line = readOnlyLine(verdict.decision);
  return line && sandbox?.readOnly?.().enforced === true ? line : undefined;
}

/** The dialog's note where the sandbox runs but the read-only fence cannot. */
function fenceNote(sandbox: PipelineSandbox | undefined, level: SandboxLevel | undefined, off: boolean): { readOnlyNotEnforced?: string } {
  if (level !== 'sandboxed' || off || !sandbox?.readOnly) return {};
  const capability = sandbox.readOnly();
  return capability.enforced ? {} : { readOnlyNotEnforced: capability.why ?? 'unknown reason' };
}

/** Where the pipeline has no sandbox, or the sandbox cannot say, the fence is not there. */
function readOnlyCapabilityOf(sandbox: PipelineSandbox | undefined, level: SandboxLevel | undefined, off: boolean): ReadOnlyCapability {
  if (!sandbox?.readOnly || level === undefined) return { enforced: false, why: READ_ONLY_NO_SANDBOX };
  return sandbox.readOnly(off ? 'off' : undefined);
}

/**
 * Records that an auto-approved read ran read-only, or that the kernel could not hold it here; when
 * the fence refused something the command tried, one line says so and what to do.
 */
export function withReadOnlyDetails(result: ToolResult, capability: ReadOnlyCapability): ToolResult {
  const box = (result.details.sandbox ??= { level: 'plain' });
  box.readOnly = capability.enforced ? { enforced: true } : { enforced: false, ...(capability.why ? { why: capability.why } : {}) };
  if (!capability.enforced) return result;
  const output = result.content.map((c) => c.text).join('\n');
  const refused = fenceRefusals(output);
  if (refused.length === 0) return result;
  box.readOnly.refused = true;
  const text = readOnlyRefusalNotice(refused);
  const last = result.content.at(-1);
  if (last) last.text = `${last.text}\n\n${text}`;
  else result.content.push({ type: 'text', text });
  return result;
}
