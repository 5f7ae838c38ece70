// The bash tool, end to end: every call goes through these stages in this order (oh-my-pi §2, with
// the policy of issue 3 in front of the interceptor) and ends in one result shape whatever ran it.
//   validate → cd prefix → async gate → policy (+ approval) → interceptor → internal URLs → cwd
//   → timeout clamp → route (async job → client bridge → PTY → local executor) → result
// Tool-level failures never throw out of `run`: they come back as `isError` results.
import * as path from 'node:path';
import { BridgeShell, runBridgeCommand } from './bridgeRoute';
import { autoBackgroundWaitMs } from './autoBackground';
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
  ShellAnalyzer,
  TimeoutInfo,
  ToolResult,
  UpdateListener,
  UrlResolver,
} from './contracts';
import { resolveCwd, resolveCwdPath } from './cwd';
import { ToolAbortError, ToolError } from './errors';
import { parseBashInput } from './input';
import { Interceptor } from './interceptor';
import { expandCwdUrl, expandEnvUrls, expandInternalUrls, withArtifactScheme, withLocalScheme } from './internalUrls';
import { OutputSink } from './output/outputSink';
import { decide } from './policy/policy';
import { isCodeLoadingAssignment } from './policy/shellNormalize';
import {
  buildBackgroundStartResult,
  buildCompletedResult,
  errorResult,
  PTY_UNAVAILABLE_NOTICE,
} from './output/results';
import { streamTailUpdates, TailBuffer } from './output/tailBuffer';
import { clampTimeout } from './timeout';

export const ASYNC_JOBS_UNAVAILABLE = 'Async job manager unavailable for this session.';
export const COMMAND_ABORTED = 'Command aborted';
/** A local/PTY cancel whose output already carries the executor's own notice keeps it as is. */
export const CANCELLED_NOTICE_LINE = '[Command cancelled]';
export const ABORTED_NOTICE_LINE = '[Command aborted]';
/** Kind of the artifact that holds a run's full output. */
export const OUTPUT_ARTIFACT_KIND = 'bash';
/** Job labels are cut to this many characters (oh-my-pi: 117 + `...` past 120). */
export const JOB_LABEL_MAX = 120;
/** Used for client terminals when the host does not say which shell to wrap the line in. */
export const DEFAULT_BRIDGE_SHELL: BridgeShell = { command: '/bin/bash', args: ['-l', '-c'] };

/** A deny rule (or a critical/deny verdict) fired: nothing ran. */
export function commandDeniedMessage(reason: string): string {
  return `Command denied: ${reason}`;
}
/** The user answered "deny" to the approval prompt: nothing ran. */
export function userDeniedMessage(reason: string): string {
  return `Command denied by the user: ${reason}`;
}
export function jobsAtCapacityMessage(max: number): string {
  return `Too many background jobs are running (limit ${max}). Wait for one to finish or cancel one, then try again.`;
}
export function jobLabel(command: string): string {
  return command.length > JOB_LABEL_MAX ? `${command.slice(0, JOB_LABEL_MAX - 3)}...` : command;
}

/** Why an `env` parameter makes an allowed command ask first. */
export function envRiskReason(name: string): string {
  return `the \`env\` parameter sets \`${name}\`, which can make programs load other code`;
}

/**
 * The `env` parameter is not part of the command text the rules read, but `BASH_ENV`, `LD_PRELOAD`,
 * `PATH`, `GIT_*`, `npm_config_*`… can make an allowed command run anything: such a call asks first.
 */
export function withEnvRisk(decision: PolicyDecision, env: Record<string, string> | undefined): PolicyDecision {
  if (decision.decision !== 'allow' || !env) return decision;
  const risky = Object.keys(env).find((name) => isCodeLoadingAssignment(`${name}=`) !== undefined);
  if (!risky) return decision;
  return { ...decision, decision: 'prompt', rule: null, kind: 'opaque', reason: envRiskReason(risky) };
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
  /**
   * Optional: environment preflight (direnv) for the bridge and PTY routes; the local executor runs
   * its own. Returns the command (possibly with `unset -v …;` in front) and the env to use.
   */
  preflight?: (input: Preflight) => Promise<Preflight>;
}

export interface Preflight {
  command: string;
  cwd: string;
  env?: Record<string, string>;
  timeoutMs: number;
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
}

interface Prepared {
  command: string;
  cwd: string;
  env?: Record<string, string>;
  timeout: TimeoutInfo;
  notices: string[];
}

export class BashPipeline {
  private readonly interceptor = new Interceptor();

  constructor(private readonly deps: BashPipelineDeps) {}

  /** The policy verdict for `command` run in `cwd` (default: the session cwd), without running it. */
  explain(command: string, cwd?: string, env?: Record<string, string>): PolicyDecision {
    const decision = decide(this.deps.analyzer.analyze(command), this.deps.settings().patterns, {
      cwd: this.policyCwd(cwd),
      workspaceRoots: this.deps.workspaceRoots(),
    });
    return withEnvRisk(decision, env);
  }

  async run(rawInput: unknown, opts: BashRunOptions = {}): Promise<ToolResult> {
    let verdict: NonNullable<ToolResult['details']['decision']> | undefined;
    try {
      const { deps } = this;
      const settings = deps.settings();
      const { signal } = opts;

      // 1. Validate (also refuses `async` when async is disabled).
      const input = parseBashInput(rawInput, { asyncEnabled: settings.asyncEnabled });
      const raw = input.command;

      // 2. Leading `cd dir &&` becomes the cwd when none was given.
      const cd = input.cwd === undefined ? extractCdPrefix(raw) : undefined;
      const command = cd ? cd.command : raw;
      const cwdInput = input.cwd ?? cd?.cwd;

      // 3. Async gate: an explicit background run needs a job manager.
      if (input.async && !deps.jobs) throw new ToolError(ASYNC_JOBS_UNAVAILABLE);

      // 4. Policy on the raw command (the `cd` included), where it was asked to run.
      const analysis = deps.analyzer.analyze(raw);
      const policyCwd = this.policyCwd(input.cwd);
      const decision = withEnvRisk(
        decide(analysis, settings.patterns, { cwd: policyCwd, workspaceRoots: deps.workspaceRoots() }),
        input.env,
      );
      verdict = { decision: decision.decision, reason: decision.reason, kind: decision.kind, ...(decision.rule ? { rule: decision.rule.match } : {}) };
      if (decision.decision === 'deny') throw new ToolError(commandDeniedMessage(decision.reason));
      if (decision.decision === 'prompt') {
        if (signal?.aborted) throw new ToolAbortError(COMMAND_ABORTED);
        const answer = await (opts.approver ?? deps.approver).approve({ command: raw, cwd: policyCwd, decision, caller: opts.caller }, signal);
        verdict.answer = answer.kind;
        // Stopped while the dialog was open: a cancel, not the user's Deny.
        if (signal?.aborted) throw new ToolAbortError(COMMAND_ABORTED);
        // 'always': the approver already persisted the new rules; this call proceeds like 'allow'.
        if (answer.kind === 'deny') throw new ToolError(userDeniedMessage(decision.reason));
      }

      // 5. Interceptor: raw command, then the cd-stripped one.
      if (settings.interceptor.enabled) {
        const commands = [{ command: raw, analysis }];
        if (command !== raw) commands.push({ command, analysis: deps.analyzer.analyze(command) });
        const blocked = this.interceptor.check({
          raw,
          commands,
          rules: settings.interceptor.patterns,
          toolAvailable: deps.toolAvailable ?? (() => false),
          sessionKey: opts.sessionKey ?? deps.sessionId,
        });
        if (blocked) throw new ToolError(blocked);
      }

      // 6. Internal URLs (after the checks: `local://` creates directories).
      const resolver = this.resolver();
      const finalCommand = expandInternalUrls(command, { resolver, escape: true, ensureLocalParentDirs: true });
      const env = input.env ? expandEnvUrls(input.env, resolver) : undefined;
      const cwdExpanded = cwdInput === undefined ? undefined : expandCwdUrl(cwdInput, resolver);

      // 7. Working directory.
      const cwd = await resolveCwd(cwdExpanded, deps.sessionCwd());

      // 8. Timeout.
      const timeout = clampTimeout(input.timeout, settings.maxTimeout);
      const prepared: Prepared = { command: finalCommand, cwd, timeout, notices: timeout.notice ? [timeout.notice] : [] };
      if (env) prepared.env = env;

      if (signal?.aborted) throw new ToolAbortError(COMMAND_ABORTED);

      // 9. Route.
      const result = await this.route(prepared, input.pty, input.async, raw, opts);
      result.details.decision = verdict;
      return result;
    } catch (err) {
      const result = errorResult(err);
      if (verdict) result.details.decision = verdict;
      return result;
    }
  }

  private async route(p: Prepared, pty: boolean, async: boolean, raw: string, opts: BashRunOptions): Promise<ToolResult> {
    const { deps } = this;
    const bridge = deps.bridge;
    if (async) return this.startJob(p, raw);
    const useBridge = !!(bridge?.capabilities.terminal && bridge.createTerminal && !pty);
    if ((useBridge || (pty && deps.pty)) && deps.preflight) p = await this.preflighted(p, deps.preflight);
    const auto = deps.settings().autoBackground;
    // The bridge wins over auto-background (§2.9): the client shows the live terminal instead.
    if (auto.enabled && !pty && !useBridge && deps.jobs?.waitFor && !deps.jobs.atCapacity()) {
      return this.autoBackground(deps.jobs, p, raw, opts);
    }
    if (bridge && useBridge) {
      const settings = deps.settings();
      return runBridgeCommand({
        bridge,
        line: p.command,
        shell: this.bridgeShell(settings),
        cwd: p.cwd,
        ...(p.env ? { env: p.env } : {}),
        timeout: p.timeout,
        notices: p.notices,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onUpdate ? { onUpdate: opts.onUpdate } : {}),
        artifacts: deps.artifacts,
        createSink: () => this.makeSink(),
        ...(deps.bridgePollIntervalMs !== undefined ? { pollIntervalMs: deps.bridgePollIntervalMs } : {}),
      });
    }
    if (pty) {
      if (deps.pty) return this.runPty(deps.pty, p, opts);
      p.notices.push(PTY_UNAVAILABLE_NOTICE);
    }
    return this.runLocal(p, opts);
  }

  private async preflighted(p: Prepared, preflight: NonNullable<BashPipelineDeps['preflight']>): Promise<Prepared> {
    const out = await preflight({ command: p.command, cwd: p.cwd, ...(p.env ? { env: p.env } : {}), timeoutMs: p.timeout.timeoutMs });
    const next: Prepared = { ...p, command: out.command };
    if (out.env) next.env = out.env;
    return next;
  }

  private runLocal(p: Prepared, opts: BashRunOptions): Promise<ToolResult> {
    const onChunk = opts.onUpdate ? streamTailUpdates(new TailBuffer(), opts.onUpdate) : undefined;
    return this.execLocal(p, this.makeSink(onChunk), opts.sessionKey ?? this.deps.sessionId, opts.signal);
  }

  /** One run on the local executor into `sink` (disposed after), mapped to a result (§8). */
  private async execLocal(p: Prepared, sink: OutputSinkLike, sessionKey: string, signal?: AbortSignal): Promise<ToolResult> {
    const started = Date.now();
    try {
      const res = await this.deps.executor.run({
        command: p.command,
        cwd: p.cwd,
        ...(p.env ? { env: p.env } : {}),
        timeoutMs: p.timeout.timeoutMs,
        ...(signal ? { signal } : {}),
        sessionKey,
        sink,
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
        timeoutMs: p.timeout.timeoutMs,
        ...(opts.signal ? { signal: opts.signal } : {}),
        sink,
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
   * §2.8 auto-background: the command runs as a job whose completion is held back; if it ends within
   * the wait its result comes back inline, otherwise the call returns a background-start result with
   * the latest output and the completion is delivered later.
   */
  private async autoBackground(jobs: JobManager, p: Prepared, raw: string, opts: BashRunOptions): Promise<ToolResult> {
    const { waitFor, resumeDelivery, consumeResult } = jobs;
    if (!waitFor || !resumeDelivery || !consumeResult) throw new Error('auto-background needs waitFor, resumeDelivery and consumeResult');
    let latest = '';
    let forwarding = true;
    const info = this.registerJob(jobs, p, raw, { suppressDelivery: true }, (tail) => {
      latest = tail;
      if (forwarding) opts.onUpdate?.({ content: [{ type: 'text', text: tail }], details: {} });
    });
    const waitMs = autoBackgroundWaitMs(this.deps.settings().autoBackground.thresholdMs, p.timeout.timeoutMs);
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
  ): JobInfo {
    return jobs.register(
      jobLabel(raw),
      async (ctx) => {
        const tail = new TailBuffer();
        const sink = this.makeSink((text) => {
          tail.append(text);
          ctx.onProgress(tail.text());
          onTail?.(tail.text());
        });
        // A fresh shell per job: a background command must not share (or block) the foreground shell.
        return this.execLocal(p, sink, `${this.deps.sessionId}:async:${ctx.jobId}`, ctx.signal);
      },
      options,
    );
  }

  /** §8.2/§8.3 for local and PTY runs. Throws the cancel outcomes; the caller turns them into results. */
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
