// `Agent Bash: Connect ACP Agent`: picks an agent from `agentBash.acp.agents` (or takes a config object
// or an agent name as argument, which is how tests connect), launches it, and opens its panel. Returns
// a handle to the connection. Every agent still connected is disconnected when the extension stops.
import * as vscode from 'vscode';
import { AcpAgentConnection, type AgentConnectionDeps } from '../acp/agentConnection';
import { parseAgentConfig, type AcpAgentConfig } from '../acp/agentConfig';
import { AcpFsHost } from '../acp/fsHost';
import { AcpPanel } from './acpPanel';
import type { AgentBashServices } from './services';
import { readAcpAgents } from './settings';
import { WorkspaceDocuments } from './workspaceDocuments';

export const CONNECT_ACP_COMMAND = 'agentBash.connectAcpAgent';
export const NO_AGENTS_MESSAGE = 'Agent Bash: no ACP agents are configured. Add one to the `agentBash.acp.agents` setting.';
export const PICK_AGENT_PLACEHOLDER = 'ACP agent to connect';
export function unknownAgentMessage(name: string): string {
  return `Agent Bash: no ACP agent named "${name}" in \`agentBash.acp.agents\`.`;
}
export function connectFailedMessage(detail: string): string {
  return `Agent Bash: could not connect the ACP agent: ${detail}`;
}

export interface ConnectOptions {
  /** Default true. */
  panel?: boolean;
}

export interface AcpAgentHandle {
  connection: AcpAgentConnection;
  panel: AcpPanel | undefined;
}

export function registerAcp(context: vscode.ExtensionContext, services: AgentBashServices): void {
  const live = new Set<AcpAgentConnection>();
  // Read at call time, so a test (or a late-landing service) that swaps one is honoured.
  const deps: AgentConnectionDeps = {
    bridge: services.bridge,
    decide: (command, cwd) => (services as Partial<AgentBashServices>).pipeline?.decide(command, cwd),
    approver: { approve: (req, signal) => services.approver.approve(req, signal) },
    asker: { ask: (question, signal) => services.prompter.ask(question, signal) },
    fs: new AcpFsHost(new WorkspaceDocuments(), {
      roots: () => services.workspaceRoots(),
      confirm: async (kind, p) =>
        (await services.prompter.ask({
          message: `Agent Bash: let the agent ${kind} a file outside the workspace?`,
          detail: `${kind === 'read' ? 'Read' : 'Write'}: ${p}`,
          buttons: [kind === 'read' ? 'Allow read' : 'Allow write', 'Deny'],
        })) === (kind === 'read' ? 'Allow read' : 'Allow write'),
    }),
    log: services.log,
    workspaceCwd: () => services.workspaceCwd(),
    ...(services.sandbox ? { sandbox: services.sandbox } : {}),
    processEnv: () => services.processEnv(),
  };
  const findTerminal = (terminalId: string) => services.bridge.list().find((t) => t.terminalId === terminalId)?.terminal;

  const connect = async (config: AcpAgentConfig, options: ConnectOptions): Promise<AcpAgentHandle> => {
    const connection = await AcpAgentConnection.connect(config, deps);
    live.add(connection);
    connection.onClosed((reason) => {
      live.delete(connection);
      services.log.info(`ACP agent ${connection.name} disconnected: ${reason}`);
    });
    const panel = options.panel === false ? undefined : AcpPanel.open(context.extensionUri, connection, findTerminal);
    return { connection, panel };
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(CONNECT_ACP_COMMAND, async (arg?: unknown, options: ConnectOptions = {}) => {
      // With an argument the caller is a program: errors are thrown to it instead of shown.
      if (arg !== undefined) return connect(configFromArgument(arg), options);
      const config = await pickAgent(services);
      if (!config) return undefined;
      try {
        return await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `Connecting ${config.name}…` },
          () => connect(config, options),
        );
      } catch (err) {
        void vscode.window.showErrorMessage(connectFailedMessage((err as Error).message));
        return undefined;
      }
    }),
    {
      dispose: () => {
        for (const connection of live) void connection.disconnect('Agent Bash is shutting down');
      },
    },
  );
}

function configuredAgents(services: AgentBashServices): AcpAgentConfig[] {
  return readAcpAgents((message) => services.log.warn(message));
}

function configFromArgument(arg: unknown): AcpAgentConfig {
  if (typeof arg !== 'string') return parseAgentConfig(arg);
  const found = readAcpAgents(() => undefined).find((a) => a.name === arg);
  if (!found) throw new Error(unknownAgentMessage(arg));
  return found;
}

async function pickAgent(services: AgentBashServices): Promise<AcpAgentConfig | undefined> {
  const agents = configuredAgents(services);
  if (agents.length === 0) {
    void vscode.window.showWarningMessage(NO_AGENTS_MESSAGE);
    return undefined;
  }
  if (agents.length === 1) return agents[0];
  const picked = await vscode.window.showQuickPick(
    agents.map((a) => ({ label: a.name, description: [a.command, ...(a.args ?? [])].join(' '), config: a })),
    { placeHolder: PICK_AGENT_PLACEHOLDER },
  );
  return picked?.config;
}
