// What activate() builds once and hands to every caller adapter (commands, ACP host, LM tool, API).
import type * as vscode from 'vscode';
import type { Approver, BashSettings, CallerInfo, PolicyDecision, ToolResult, UpdateListener } from '../core/contracts';
import type { PipelineSandbox, RunStart } from '../core/pipeline';
import type { ModalPrompter } from './approvals/modalPrompter';
import type { VsCodeClientBridge } from './terminals/clientBridge';

/** The part of the core pipeline the adapters use. */
export interface PipelineLike {
  run(
    rawInput: unknown,
    opts?: { signal?: AbortSignal; onUpdate?: UpdateListener; sessionKey?: string; approver?: Approver; caller?: CallerInfo; onStart?: (started: RunStart) => void },
  ): Promise<ToolResult>;
  /** `env`: variables the command would get (some, like BASH_ENV, can make an allowed command ask). */
  explain(command: string, cwd?: string, env?: Record<string, string>, opts?: { trace?: boolean }): PolicyDecision;
  /** The rules' decision on the command text alone (the policy gate adds the env risk). */
  decide(command: string, cwd?: string): PolicyDecision;
}

export interface AgentBashServices {
  bridge: VsCodeClientBridge;
  pipeline: PipelineLike;
  approver: Approver;
  prompter: ModalPrompter;
  settings(): BashSettings;
  log: vscode.LogOutputChannel;
  workspaceCwd(): string;
  workspaceRoots(): string[];
  /** The environment every process Agent Bash starts inherits (marked with the session id). */
  processEnv(): NodeJS.ProcessEnv;
  /** The OS sandbox, for callers that apply the policy themselves (ACP `terminal/create`). */
  sandbox?: PipelineSandbox;
}
