// The interfaces between the pipeline's stages and its backends. Every module in core/, exec/ and
// vscode/ codes against these; none of them imports `vscode`.

export type * from './policy/policyContracts';
export type * from './output/outputContracts';
import type { OutputSinkLike, OutputSummary } from './output/outputContracts';
import type { DecidedBy, DecisionKind, PolicyDecision, PolicyRule, RuleLayer, RuleLayerName, Verdict } from './policy/policyContracts';
import type { ReadOnlyLine } from './policy/checks/readerClass';

// ---- Results ----

export interface AsyncDetails {
  state: 'running' | 'completed' | 'failed';
  jobId: string;
  type: 'bash';
}

/** oh-my-pi's `BashToolDetails`, plus Agent Bash's extras. */
export interface BashToolDetails {
  timeoutSeconds?: number;
  timeoutDisabled?: true;
  requestedTimeoutSeconds?: number;
  wallTimeMs?: number;
  exitCode?: number;
  timedOut?: true;
  terminalId?: string;
  async?: AsyncDetails;
  meta?: Record<string, unknown>;
  /** Agent Bash extras: the policy decision (who let it run, the user's answer when asked) and the artifact of the full output. */
  decision?: {
    decision: Verdict;
    reason: string;
    kind?: DecisionKind;
    rule?: string;
    /** The layer of `rule` and where it was read (PolicyDecision.layer, layerSource). */
    layer?: RuleLayerName;
    layerSource?: string;
    /** The other deny and prompt rules that matched, as people read them ("ask rule `git push *` from user settings"). */
    alsoMatched?: string[];
    answer?: ApprovalAnswer['kind'];
    decidedBy?: DecidedBy;
  };
  artifactId?: string;
  signal?: string;
  /** How the command ran (OS sandbox, only a PID namespace, or plain) and what the sandbox refused. */
  sandbox?: {
    level: 'sandboxed' | 'contained' | 'plain';
    refused?: { paths: string[]; hosts: string[]; reasons?: Record<string, string> };
    /** Protected paths the sandbox could not mount (a symlink, a socket…), with why. */
    skipped?: string[];
    /** Protected paths that changed while the command ran (what the mounts missed). */
    protectedChanged?: string[];
    /** The limits the command hit (processes, memory, TMPDIR size). */
    limits?: string[];
    /**
     * An auto-approved read: `enforced` when it ran under the read-only fence, else why the kernel
     * could not hold it here (`not enforced: …`); `refused` when the fence refused something it tried.
     */
    readOnly?: { enforced: boolean; why?: string; refused?: boolean };
  };
}

export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  details: BashToolDetails;
  isError?: boolean;
}

export type UpdateListener = (update: ToolResult) => void;

// ---- Backends ----

export interface ExecRequest {
  command: string;
  cwd: string;
  /** Caller env overrides (already URL-expanded). */
  env?: Record<string, string>;
  /** 0 = no deadline. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Persistent-shell session key; undefined = one-shot shell. */
  sessionKey?: string;
  /** Inherited variables to unset first (the environment stage's): `unset -v A B; <prefix> <command>`. */
  unset?: string[];
  sink: OutputSinkLike;
  /** `off`: run outside the OS sandbox (still in a PID namespace); absent: as the settings say. */
  sandbox?: 'off';
  /**
   * An auto-approved read (core/policy/checks/readerClass.ts): run it under the read-only fence
   * (exec/sandbox/readOnly/), with only these programs allowed to start. Absent: as today.
   */
  readOnly?: ReadOnlyLine;
}

export interface ExecResult {
  /** The code, or 128+n for a signal (SIGKILL → 137); undefined when unknown. */
  exitCode: number | undefined;
  /** Signal name (`SIGKILL`) when a signal ended it. */
  signal?: string;
  timedOut: boolean;
  cancelled: boolean;
  summary: OutputSummary;
}

export interface LocalExecutor {
  run(req: ExecRequest): Promise<ExecResult>;
  /** Starts the persistent shell of a session ahead of its first call (optional; runs nothing). */
  warm?(req: { sessionKey: string; cwd: string; sandbox?: 'off' }): void;
  /** Kills every shell and process this executor started. */
  dispose(): Promise<void>;
}

export interface PtyRequest extends ExecRequest {
  cols?: number;
  rows?: number;
  /** Raw PTY data for a live view (ANSI intact). */
  onData?: (data: string) => void;
}

export interface PtySession {
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Kills the process group (the user's Esc or terminal close). */
  kill(): void;
  readonly result: Promise<ExecResult>;
}

export interface PtyExecutor {
  start(req: PtyRequest): PtySession;
}

// ACP-shaped client bridge (the `terminal/*` methods; docs/ARCHITECTURE.md, Routes).
export interface EnvVariable {
  name: string;
  value: string;
}

export interface CreateTerminalParams {
  command: string;
  args?: string[];
  env?: EnvVariable[];
  cwd?: string;
  outputByteLimit?: number;
}

export interface TerminalExitStatus {
  exitCode: number | null;
  signal: string | null;
}

export interface TerminalOutput {
  output: string;
  truncated: boolean;
  exitStatus: TerminalExitStatus | null;
}

export interface TerminalHandle {
  terminalId: string;
  currentOutput(): Promise<TerminalOutput>;
  waitForExit(): Promise<TerminalExitStatus>;
  /** `why`: the words for the person (`timed out after 2 s`, `cancelled by Copilot`), when known. */
  kill(why?: string): Promise<void>;
  release(): Promise<void>;
  /** In-process bridges push output as it arrives; returns an unsubscribe function. */
  onOutput?(listener: (chunk: string) => void): () => void;
  /** In-process bridges also hand the full raw stream to a sink for artifact spill. */
  pipeTo?(sink: OutputSinkLike): void;
}

export interface ClientBridge {
  capabilities: { terminal: boolean };
  createTerminal?(params: CreateTerminalParams, options?: BridgeCreateOptions): Promise<TerminalHandle>;
  /** A bridge with persistent shells starts the session's ahead of its first line (runs nothing). */
  warm?(session: { key: string; cwd: string; sandbox?: 'off' }): void;
}

export interface BridgeCreateOptions {
  /** Who made it (an ACP agent id, an API caller): releasing the owner releases all of theirs. */
  owner?: string;
  /** Who runs the command (its terminal, its history entry); absent: an unnamed caller. */
  caller?: CallerInfo;
  /** `off`: run outside the OS sandbox (still in a PID namespace); absent: as the settings say. */
  sandbox?: 'off';
  /** The caller's words on what the command does (`description`), shown under its header line. */
  description?: string;
  /** An auto-approved read (ACP `terminal/create`, the API): its process runs under the read-only fence. */
  readOnly?: ReadOnlyLine;
  /**
   * The command is a shell line the pipeline has judged: a bridge that keeps a persistent shell per
   * caller session may run `line` there instead of starting `params` (ACP `terminal/create` never
   * sets this: the protocol promises a process per request).
   */
  session?: SessionLine;
}

/** A shell line for a caller's persistent shell session. */
export interface SessionLine {
  /** The session (one per caller session). */
  key: string;
  /** The line, without the environment stage's unsets (`unset` carries them). */
  line: string;
  unset?: string[];
  /** An auto-approved read: the session runs it under the read-only fence (ExecRequest.readOnly). */
  readOnly?: ReadOnlyLine;
}

// ---- Callers ----

/** Who runs a command: named in approval dialogs, in the name of its terminal, and in the history. */
export interface CallerInfo {
  kind: 'palette' | 'lmTool' | 'acp' | 'api' | 'mcp' | 'cli' | 'bang';
  /** What a person reads: "Copilot", the ACP agent's name, the MCP client's name, an extension id. */
  name: string;
  /** One caller session (an ACP connection, an MCP session, a chat): its commands share a terminal. */
  sessionId: string;
}

// ---- Jobs ----

export type JobState = 'running' | 'completed' | 'failed' | 'cancelled';

export interface JobInfo {
  id: string;
  label: string;
  state: JobState;
  startedAt: number;
  endedAt?: number;
  /** Latest tail of the output (≤ 50 KiB). */
  tail: string;
  result?: ToolResult;
  /** Who killed it, when `cancel` was told ("you", an MCP client's name); absent otherwise. */
  cancelledBy?: string;
}

export interface JobContext {
  jobId: string;
  signal: AbortSignal;
  onProgress(tail: string): void;
}

export type JobWaitOutcome = 'done' | 'timer' | 'aborted';

export interface JobManager {
  atCapacity(): boolean;
  /**
   * `label`: the command (the manager cuts it, core/jobLimits.ts). `suppressDelivery`: hold the
   * completion event until `resumeDelivery` (auto-background).
   */
  register(label: string, runner: (ctx: JobContext) => Promise<ToolResult>, options?: { suppressDelivery?: boolean }): JobInfo;
  /** Auto-background support: race the job's end against `waitMs` and `signal`. */
  waitFor?(id: string, waitMs: number, signal?: AbortSignal): Promise<JobWaitOutcome>;
  /** Release a suppressed job's completion event (delivered now if it already ended). */
  resumeDelivery?(id: string): void;
  /** Take a suppressed, ended job's result inline; it is then never delivered through the event. */
  consumeResult?(id: string): ToolResult | undefined;
  get(id: string): JobInfo | undefined;
  list(): JobInfo[];
  /** `by`: who kills it ("you", a client's name), kept on the job for the history. */
  cancel(id: string, by?: string): boolean;
  /** Completion (completed, failed or cancelled) is delivered here. Returns an unsubscribe. */
  onDidComplete(listener: (job: JobInfo) => void): () => void;
  onDidChange(listener: (job: JobInfo) => void): () => void;
  dispose(): Promise<void>;
}

// ---- Approvals ----

export interface ApprovalRequest {
  command: string;
  cwd: string;
  decision: PolicyDecision;
  /** Who is asking; absent for an unnamed caller. */
  caller?: CallerInfo;
  /** The caller's own words on what the command does (`description`), shown beside it. */
  description?: string;
  /** The call asked to run outside the OS sandbox (`sandbox: "off"`). */
  sandboxOff?: boolean;
  /**
   * Where the sandbox runs but the read-only fence cannot (an old kernel, no compiled launcher):
   * why, so the person knows lines allowed as reads stand on the policy's reading alone.
   */
  readOnlyNotEnforced?: string;
}

export type ApprovalAnswer =
  | { kind: 'allow' }
  /** Allow this command for the rest of the caller's session (the approver remembers it). */
  | { kind: 'session' }
  | { kind: 'deny' }
  | { kind: 'always'; rules: PolicyRule[]; scope: 'workspace' | 'user' };

export interface Approver {
  approve(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer>;
}

// ---- Internal URLs ----

export interface UrlResolver {
  /** Absolute filesystem path for `scheme://rest`, or undefined when it cannot be resolved. */
  resolve(scheme: string, url: string): string | undefined;
}

// ---- Settings (a plain object: read once from VS Code or a file, passed in) ----

export interface InterceptorRule {
  pattern: string;
  /** RegExp flags for `pattern` (oh-my-pi's optional `flags`). */
  flags?: string;
  tool: string;
  message: string;
}

export interface BashSettings {
  /**
   * The rules in force, one entry per layer (built-in list, managed file, user, workspace, folder
   * settings; `--rules` files in the CLI). `decide` merges them: deny beats prompt beats allow.
   */
  ruleLayers: RuleLayer[];
  interceptor: { enabled: boolean; patterns: InterceptorRule[] };
  /** Global timeout ceiling in seconds; ≤ 0 = none. */
  maxTimeout: number;
  asyncEnabled: boolean;
  asyncMaxJobs: number;
  autoBackground: { enabled: boolean; thresholdMs: number };
  /** KiB. */
  artifactHeadBytes: number;
  outputMaxColumns: number;
  shell: { path?: string; args?: string[] };
  direnv: 'auto' | 'off';
}

// ---- Timeouts ----

/** The outcome of clamping a requested timeout. */
export interface TimeoutInfo {
  /** The requested value in seconds (default 300). */
  requested: number;
  /** Effective seconds; undefined when the deadline is disabled (`timeout: 0`). */
  timeoutSec?: number;
  /** Effective milliseconds; 0 when disabled. */
  timeoutMs: number;
  /** `Timeout clamped to …` when the effective value differs from the requested one. */
  notice?: string;
}
