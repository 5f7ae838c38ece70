// The public API of the Agent Bash extension (`agent-bash.agent-bash`), returned from activate():
//
//   const api = await vscode.extensions.getExtension<AgentBashApi>('agent-bash.agent-bash')!.activate();
//   const result = await api.runBash({ command: 'npm test', timeout: 120 });
//
// Every command goes through Agent Bash's policy (allow / prompt / deny, approvals in editor dialogs).
import type { Event } from 'vscode';

export type Verdict = 'allow' | 'prompt' | 'deny';

/** The bash tool's input (oh-my-pi's shape). Unknown keys are rejected. */
export interface BashInput {
  command: string;
  env?: Record<string, string>;
  /** Seconds; default 300; 0 disables the deadline; others are clamped to 1–3600. */
  timeout?: number;
  cwd?: string;
  pty?: boolean;
  async?: boolean;
}

export interface BashResultDetails {
  timeoutSeconds?: number;
  timeoutDisabled?: true;
  requestedTimeoutSeconds?: number;
  wallTimeMs?: number;
  /** Non-zero exits only. */
  exitCode?: number;
  timedOut?: true;
  terminalId?: string;
  async?: { state: 'running' | 'completed' | 'failed'; jobId: string; type: 'bash' };
  meta?: Record<string, unknown>;
  decision?: { decision: Verdict; reason: string };
  /** `artifact://<id>` holds the full output when it did not fit inline. */
  artifactId?: string;
  signal?: string;
}

export interface BashResult {
  content: Array<{ type: 'text'; text: string }>;
  details: BashResultDetails;
  isError?: boolean;
}

export interface RunBashOptions {
  /** Partial results while the command runs (the first carries `terminalId`). */
  onUpdate?: (update: BashResult) => void;
  signal?: AbortSignal;
  /** Who you are, as the user reads it: your commands share the terminal "Agent Bash: <callerName>". */
  callerName?: string;
}

export interface CreateTerminalOptions {
  /** As in RunBashOptions: the command is drawn in the terminal "Agent Bash: <callerName>". */
  callerName?: string;
}

/** ACP `terminal/create` parameters. */
export interface CreateTerminalParams {
  command: string;
  args?: string[];
  env?: Array<{ name: string; value: string }>;
  cwd?: string;
  outputByteLimit?: number;
}

export interface TerminalExitStatus {
  exitCode: number | null;
  signal: string | null;
}

/** The ACP terminal contract, backed by a VS Code terminal. */
export interface TerminalHandle {
  terminalId: string;
  currentOutput(): Promise<{ output: string; truncated: boolean; exitStatus: TerminalExitStatus | null }>;
  waitForExit(): Promise<TerminalExitStatus>;
  kill(): Promise<void>;
  release(): Promise<void>;
}

export interface BangResult {
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
}

export interface SegmentExplanation {
  text: string;
  argv: string[];
  decision: Verdict;
  rule: { match: string; approval: Verdict } | null;
  opaque: boolean;
}

export interface PolicyExplanation {
  decision: Verdict;
  rule: { match: string; approval: Verdict; allowRedirects?: boolean } | null;
  /** The layer of `rule`: `builtin`, `managed`, `user`, `workspace`, `folder` or `file`; null when no rule decided. */
  layer: 'builtin' | 'managed' | 'user' | 'workspace' | 'folder' | 'file' | null;
  /** Where that layer was read (`user settings`, the managed file's path, …); null when no rule decided. */
  layerSource: string | null;
  reason: string;
  uncertain: boolean;
  segments: SegmentExplanation[];
}

export interface RanCommand {
  command: string;
  cwd?: string;
  result: BashResult;
  /** Who ran it: `palette`, `lm-tool`, `api`, `acp`, … */
  source: string;
}

export interface AgentBashApi {
  /** The whole pipeline: policy (prompting the user when needed), then a VS Code terminal. */
  runBash(input: BashInput, options?: RunBashOptions): Promise<BashResult>;
  /** A VS Code terminal with the ACP terminal contract; the command line passes the policy first. */
  createTerminal(params: CreateTerminalParams, options?: CreateTerminalOptions): Promise<TerminalHandle>;
  /** The user's own command: no approval, no interception, the user's shell. */
  runBang(command: string): Promise<BangResult | undefined>;
  /** The policy decision for a command, without running it. */
  explain(command: string, cwd?: string): PolicyExplanation;
  onDidRunCommand: Event<RanCommand>;
}
