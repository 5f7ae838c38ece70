// The public API returned from activate(), typed by the shipped api/agent-bash.d.ts (this file must
// satisfy it, so the two cannot drift). In test mode it also carries the services for the suites.
import type { BangResult, AgentBashApi as PublicApi } from '../../api/agent-bash';
import type { CallerInfo, JobManager, ToolResult } from '../core/contracts';
import * as vscode from 'vscode';
import { resolveCwd } from '../core/cwd';
import type { CommandLog } from './history/commandLog';
import type { ExecutorHolder } from './session/executorHolder';
import type { McpHost } from './mcp/mcpHost';
import type { AgentBashServices, PipelineLike } from './services';
import type { HistoryStore } from './history/historyStore';
import type { SessionCwd } from './session/sessionCwd';
import type { SessionCwdStatus } from './session/sessionCwdStatus';
import { checkTerminalPolicy } from './terminals/terminalPolicy';

export interface TestingHooks {
  services: AgentBashServices;
  jobs: JobManager;
  executors: ExecutorHolder;
  cwd: SessionCwd;
  sessionId: string;
  /** The MCP server (its port and token, for the MCP suite). */
  mcp?: McpHost;
  history?: HistoryStore;
  cwdStatus?: SessionCwdStatus;
}

export interface AgentBashApi extends PublicApi {
  /** Present only when AGENT_BASH_TEST_MODE=1 (the integration suites). */
  testing?: TestingHooks;
}

export interface ApiDeps {
  services: AgentBashServices;
  tracked: PipelineLike & { runFrom(source: string, ...args: Parameters<PipelineLike['run']>): Promise<ToolResult> };
  jobs: JobManager;
  executors: ExecutorHolder;
  commandLog: CommandLog;
  sessionId: string;
  cwd: SessionCwd;
  mcp?: McpHost;
  history?: HistoryStore;
  cwdStatus?: SessionCwdStatus;
}

/** An API caller that names itself gets "AB: <name>"; one that does not shares "Agent Bash". */
function apiCaller(name: string | undefined): CallerInfo {
  const trimmed = name?.trim() ?? '';
  return { kind: 'api', name: trimmed, sessionId: trimmed || 'api' };
}

export function createApi(deps: ApiDeps): AgentBashApi {
  const { services } = deps;
  const api: AgentBashApi = {
    runBash: (input, options) =>
      deps.tracked.runFrom('api', input, {
        ...(options?.signal ? { signal: options.signal } : {}),
        ...(options?.onUpdate ? { onUpdate: options.onUpdate } : {}),
        caller: apiCaller(options?.callerName),
      }),
    createTerminal: async (given, options) => {
      // The bash tool's cwd check and exact messages, before the policy asks anyone.
      const params = given.cwd ? { ...given, cwd: await resolveCwd(given.cwd, services.workspaceCwd()) } : given;
      const caller = apiCaller(options?.callerName);
      const readOnly = await checkTerminalPolicy(services, params, { caller });
      return services.bridge.createTerminal(params, { owner: 'api', caller, ...(readOnly ? { readOnly } : {}) });
    },
    runBang: (command) => Promise.resolve(vscode.commands.executeCommand<BangResult | undefined>('agentBash.runBang', command)),
    explain: (command, cwd) => {
      const d = services.pipeline.explain(command, cwd);
      return {
        decision: d.decision,
        rule: d.rule,
        layer: (d.rule && d.layer) ?? null,
        layerSource: (d.rule && d.layerSource) ?? null,
        reason: d.reason,
        uncertain: d.uncertain,
        segments: d.segments.map((s) => ({
          text: s.segment.text,
          argv: s.segment.argv,
          decision: s.decision,
          rule: s.rule,
          opaque: s.segment.opaque,
        })),
      };
    },
    onDidRunCommand: deps.commandLog.onDidRunCommand as vscode.Event<Parameters<Parameters<PublicApi['onDidRunCommand']>[0]>[0]>,
  };
  if (process.env.AGENT_BASH_TEST_MODE === '1') {
    api.testing = {
      services,
      jobs: deps.jobs,
      executors: deps.executors,
      cwd: deps.cwd,
      sessionId: deps.sessionId,
      ...(deps.history ? { history: deps.history } : {}),
      ...(deps.cwdStatus ? { cwdStatus: deps.cwdStatus } : {}),
      ...(deps.mcp ? { mcp: deps.mcp } : {}),
    };
  }
  return api;
}
