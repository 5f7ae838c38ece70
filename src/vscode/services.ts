// What activate() builds once and hands to every caller adapter (commands, ACP host, LM tool, API).
import type * as vscode from 'vscode';
import type { Approver, BashSettings, PolicyDecision, ToolResult, UpdateListener } from '../core/contracts';
import type { PipelineSandbox } from '../core/pipeline';
import type { ModalPrompter } from './modalPrompter';
import type { VsCodeTerminalBridge } from './terminalBridge';

/** The part of the core pipeline the adapters use. */
export interface PipelineLike {
  run(
    rawInput: unknown,
    opts?: { signal?: AbortSignal; onUpdate?: UpdateListener; sessionKey?: string; approver?: Approver },
  ): Promise<ToolResult>;
  /** `env`: variables the command would get (some, like BASH_ENV, can make an allowed command ask). */
  explain(command: string, cwd?: string, env?: Record<string, string>): PolicyDecision;
}

export interface AgentBashServices {
  bridge: VsCodeTerminalBridge;
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
