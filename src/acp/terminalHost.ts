// Serves an agent's `terminal/*` requests through the VS Code terminal bridge, with the policy gate in
// front of `terminal/create`: deny answers with a JSON-RPC error naming the rule, prompt asks the user
// first, and in both refusals nothing runs. Ids are scoped to the agent that created them.
import { RequestError } from '@agentclientprotocol/sdk';
import type {
  Approver,
  BridgeCreateOptions,
  CallerInfo,
  CreateTerminalParams,
  PolicyDecision,
  TerminalExitStatus,
  TerminalHandle,
  TerminalOutput,
} from '../core/contracts';
import { passPolicyGate, type GateVerdict } from '../core/policy/policyGate';
import { resolveCwd } from '../core/cwd';
import { ToolError } from '../core/errors';
import { fencedReadOf, sandboxForGate, type PipelineSandbox } from '../core/pipeline';
import { policyCommandLine } from '../core/policy/analysis/terminalCommandLine';

/** JSON-RPC server-error code for a command the policy or the user refused. */
export const COMMAND_DENIED_CODE = -32001;
export const UNKNOWN_TERMINAL_CODE = -32002;
/** JSON-RPC "invalid params": a cwd that is no usable directory. */
export const INVALID_PARAMS_CODE = -32602;
export const NO_POLICY_REASON = 'no policy is loaded, so every agent command asks first';

export function unknownTerminalMessage(id: string): string {
  return `Unknown terminal id: ${id}`;
}

export interface AcpCreateTerminal {
  command: string;
  args?: string[] | null;
  env?: Array<{ name: string; value: string }> | null;
  cwd?: string | null;
  outputByteLimit?: number | null;
  /** `{"agentBash": {"sandbox": "off"}}` asks to run outside the OS sandbox (always approved by the user). */
  _meta?: Record<string, unknown> | null;
}

/** The agent asked for `_meta.agentBash.sandbox: "off"`. */
export function sandboxOffRequested(req: AcpCreateTerminal): boolean {
  const ours = req._meta?.agentBash;
  return typeof ours === 'object' && ours !== null && (ours as Record<string, unknown>).sandbox === 'off';
}

export interface TerminalBridgeLike {
  createTerminal(params: CreateTerminalParams, options?: BridgeCreateOptions): Promise<TerminalHandle>;
  releaseOwner(owner: string): Promise<void>;
}

export interface TerminalHostDeps {
  bridge: TerminalBridgeLike;
  /** The rules' decision on the command text, or undefined while no policy is available (then every command asks). */
  decide(command: string, cwd: string): PolicyDecision | undefined;
  approver: Approver;
  /** Bridge owner key: every terminal of this agent is released under it. */
  owner: string;
  /** The agent as the user sees it: named in approvals and in its terminal. */
  caller?: CallerInfo;
  defaultCwd(): string;
  log(message: string): void;
  onCreated?(terminalId: string, handle: TerminalHandle, commandLine: string): void;
  /** The OS sandbox: composes with the policy as in the pipeline (deny stays deny). */
  sandbox?: PipelineSandbox;
  /** True (once) when the person just allowed this command in the agent's own permission question. */
  alreadyAllowed?(commandLine: string): boolean;
  /** What the sandbox refused, read from a sandboxed command's output, as one notice (or undefined). */
  sandboxRefusal?(output: string): string | undefined;
}

/** How an ACP agent retries outside the sandbox (`sandbox: "off"` is the tools' word for it). */
export const ACP_SANDBOX_RETRY =
  'To run it outside the sandbox, create the terminal again with _meta {"agentBash": {"sandbox": "off"}} (the user is asked to approve it).';

export class AcpTerminalHost {
  private readonly live = new Map<string, TerminalHandle>();
  private readonly released = new Set<string>();
  /** Terminals whose command runs in the OS sandbox: their refusals are named in their output. */
  private readonly sandboxed = new Set<string>();

  constructor(private readonly deps: TerminalHostDeps) {}

  async create(req: AcpCreateTerminal, signal: AbortSignal): Promise<{ terminalId: string }> {
    const line = policyCommandLine(req);
    // The tool's own cwd check and messages (`Working directory does not exist: …`), before anyone
    // is asked: a spawn in a missing directory would only say `spawn /bin/bash ENOENT`.
    const cwd = req.cwd ? await checkedCwd(req.cwd, this.deps.defaultCwd()) : this.deps.defaultCwd();
    const env = req.env?.length ? Object.fromEntries(req.env.map((v) => [v.name, v.value])) : undefined;
    // The pipeline's sandbox × policy rule: `_meta.agentBash.sandbox: "off"` asks; a sandbox that is
    // on but cannot start refuses (after a denial has said why).
    const off = sandboxOffRequested(req);
    const box = sandboxForGate(this.deps.sandbox, off);
    // A prompt the person already answered in the agent's own permission question (same command
    // line) is not asked again; deny rules never reach the approver.
    const approver: Approver = {
      approve: (request, sig) =>
        !off && this.deps.alreadyAllowed?.(line) === true ? Promise.resolve({ kind: 'allow' }) : this.deps.approver.approve(request, sig),
    };
    const verdict = await passPolicyGate(
      { decide: (command, at) => this.deps.decide(command, at) ?? noPolicyDecision(), approver },
      {
        command: line,
        cwd,
        ...(env ? { env } : {}),
        ...(this.deps.caller ? { caller: this.deps.caller } : {}),
        ...(box.gate ? { sandbox: box.gate } : {}),
        sandboxOff: off,
      },
      signal,
    );
    const { decision } = verdict;
    this.deps.log(`terminal/create ${JSON.stringify(line)} in ${cwd}: ${decision.decision} (${decision.reason}) → ${outcome(verdict)}`);
    if (verdict.kind === 'refuse') throw denied(verdict.message, decision);
    if (box.error !== undefined && verdict.kind === 'run') throw denied(box.error, decision);
    throwIfAborted(signal);

    const params: CreateTerminalParams = { command: req.command };
    if (req.args?.length) params.args = req.args;
    if (req.env?.length) params.env = req.env;
    if (req.cwd) params.cwd = cwd;
    if (typeof req.outputByteLimit === 'number') params.outputByteLimit = req.outputByteLimit;
    // An auto-approved read runs fenced here too (docs/SANDBOX.md).
    const readOnly = fencedReadOf(verdict, this.deps.sandbox, off);
    const handle = await this.deps.bridge.createTerminal(params, {
      owner: this.deps.owner,
      ...(this.deps.caller ? { caller: this.deps.caller } : {}),
      ...(off ? { sandbox: 'off' as const } : {}),
      ...(readOnly ? { readOnly } : {}),
    });
    if (signal.aborted) {
      // The agent gave up on this create and will never learn the id: nothing may keep running for it.
      await handle.release();
      throwIfAborted(signal);
    }
    this.live.set(handle.terminalId, handle);
    if (box.level === 'sandboxed') this.sandboxed.add(handle.terminalId);
    this.deps.onCreated?.(handle.terminalId, handle, line);
    return { terminalId: handle.terminalId };
  }

  /**
   * The terminal's output; once a sandboxed command has exited, with a last line naming what the
   * sandbox refused and how to retry (a bare `Read-only file system` says nothing of the sandbox).
   */
  async output(terminalId: string): Promise<TerminalOutput> {
    const out = await this.lookup(terminalId).currentOutput();
    if (!out.exitStatus || !this.sandboxed.has(terminalId)) return out;
    const notice = this.deps.sandboxRefusal?.(out.output);
    if (notice === undefined) return out;
    return { ...out, output: `${out.output}${out.output.endsWith('\n') || out.output === '' ? '' : '\n'}[${notice} ${ACP_SANDBOX_RETRY}]\n` };
  }

  async waitForExit(terminalId: string, signal: AbortSignal): Promise<TerminalExitStatus> {
    return abortable(this.lookup(terminalId).waitForExit(), signal);
  }

  async kill(terminalId: string): Promise<void> {
    await this.lookup(terminalId).kill();
  }

  /** Idempotent: releasing an id twice (or one this agent never had) is not an error. */
  async release(terminalId: string): Promise<void> {
    const handle = this.live.get(terminalId);
    if (!handle) return;
    this.live.delete(terminalId);
    this.sandboxed.delete(terminalId);
    this.released.add(terminalId);
    await handle.release();
  }

  /** Kills and releases every terminal this agent created. */
  async releaseAll(): Promise<void> {
    const handles = [...this.live.entries()];
    this.live.clear();
    this.sandboxed.clear();
    for (const [id] of handles) this.released.add(id);
    await Promise.allSettled(handles.map(([, h]) => h.release()));
    await this.deps.bridge.releaseOwner(this.deps.owner);
  }

  get liveIds(): string[] {
    return [...this.live.keys()];
  }

  private lookup(terminalId: string): TerminalHandle {
    const handle = this.live.get(terminalId);
    if (!handle) throw new RequestError(UNKNOWN_TERMINAL_CODE, unknownTerminalMessage(terminalId), { terminalId });
    return handle;
  }
}

function noPolicyDecision(): PolicyDecision {
  return { decision: 'prompt', rule: null, kind: 'default', reason: NO_POLICY_REASON, segments: [], uncertain: true };
}

function outcome(verdict: GateVerdict): string {
  if (verdict.kind === 'run') return `runs (${verdict.decidedBy})`;
  if (verdict.kind === 'refuse') return `refused (${verdict.by})`;
  return 'aborted';
}

async function checkedCwd(cwd: string, defaultCwd: string): Promise<string> {
  try {
    return await resolveCwd(cwd, defaultCwd);
  } catch (err) {
    if (err instanceof ToolError) throw new RequestError(INVALID_PARAMS_CODE, err.message, { cwd });
    throw err;
  }
}

function denied(message: string, decision: PolicyDecision): RequestError {
  return new RequestError(COMMAND_DENIED_CODE, message, {
    decision: decision.decision,
    rule: decision.rule?.match ?? null,
    reason: decision.reason,
  });
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw RequestError.requestCancelled();
}

/** Settles with `promise`, or rejects with -32800 once `signal` aborts (`$/cancel_request`). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(RequestError.requestCancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(RequestError.requestCancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
