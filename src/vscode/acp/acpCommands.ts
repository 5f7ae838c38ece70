// Room vscode/acp/: hosting ACP agents in the editor (connect command, agent panel, history, documents).
// `Agent Bash: Connect ACP Agent`: picks an agent from `agentBash.acp.agents` (or takes a config object
// or an agent name as argument, which is how tests connect), launches it, and opens its panel. Returns
// a handle to the connection. Every agent still connected is disconnected when the extension stops.
// Each connection is one caller session: its approvals name the agent, go to its panel while that is
// visible, and its terminals appear in the history.
import * as vscode from 'vscode';
import { findViolations, refusalNotice } from '../../core/sandboxRefusals';
import { AcpAgentConnection, type AgentConnectionDeps } from '../../acp/agentConnection';
import { parseAgentConfig, type AcpAgentConfig } from '../../acp/agentConfig';
import { AcpFsHost } from '../../acp/fsHost';
import type { CallerInfo } from '../../core/contracts';
import { AcpHistoryRecorder } from './acpHistory';
import { AcpPanel } from './acpPanel';
import { DialogApprover } from '../approvals/approvalDialog';
import type { HistoryStore } from '../history/historyStore';
import type { QuestionAsker } from '../approvals/modalPrompter';
import type { AgentBashServices } from '../services';
import { readAcpAgents } from '../settings/settings';
import { WorkspaceDocuments } from './workspaceDocuments';

export const CONNECT_ACP_COMMAND = 'agentBash.connectAcpAgent';
export const AGENTS_SETTING = 'acp.agents';
export const NO_AGENTS_MESSAGE = 'Agent Bash: no ACP agent is configured yet.';
export const NO_AGENTS_DETAIL = [
  'Add one to the "agentBash.acp.agents" setting (settings.json), for example:',
  '',
  '"agentBash.acp.agents": [',
  '  { "name": "oh-my-pi", "command": "omp", "args": ["acp"] }',
  ']',
  '',
  'The sample workspace of `npm start` configures a demo agent that runs each line you type.',
].join('\n');
export const OPEN_AGENT_SETTINGS = 'Open Settings';
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

export function registerAcp(context: vscode.ExtensionContext, services: AgentBashServices, history?: HistoryStore): void {
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
    sandboxRefusal: (output: string) => refusalNotice(findViolations(output)),
    processEnv: () => services.processEnv(),
  };
  const findTerminal = (terminalId: string) => services.bridge.list().find((t) => t.terminalId === terminalId)?.terminal;

  let nextSession = 1;
  const connect = async (config: AcpAgentConfig, options: ConnectOptions): Promise<AcpAgentHandle> => {
    // Set once the panel opens: from then on, while it is visible, this agent's questions go there.
    let panel: AcpPanel | undefined;
    // Until the connection exists; then its id, the session its terminals and approvals carry, so
    // "Allow for this session" is forgotten under the key it was remembered by.
    let caller: CallerInfo = { kind: 'acp', name: config.name, sessionId: `acp-${nextSession++}` };
    const asker = (): QuestionAsker => (panel?.canAsk && !services.prompter.scripted ? panel : services.prompter);
    const recorder = history ? new AcpHistoryRecorder(history, () => caller) : undefined;
    const own: AgentConnectionDeps = {
      ...deps,
      decide: (command, cwd) => {
        const decision = deps.decide(command, cwd);
        recorder?.explained(command, cwd, decision);
        return decision;
      },
      approver: {
        approve: async (req, signal) => {
          const named = { ...req, caller: req.caller ?? caller };
          const approver = services.approver;
          const answer = approver instanceof DialogApprover ? await approver.approve(named, signal, asker()) : await approver.approve(named, signal);
          recorder?.answered(req.command, answer, signal?.aborted === true);
          return answer;
        },
      },
      asker: { ask: (question, signal) => asker().ask(question, signal) },
    };
    const connection = await AcpAgentConnection.connect(config, own);
    caller = { ...caller, sessionId: connection.id };
    live.add(connection);
    if (recorder) connection.onTerminalCreated((e) => recorder.created(e));
    connection.onClosed((reason) => {
      live.delete(connection);
      if (services.approver instanceof DialogApprover) services.approver.session.forget(caller.sessionId);
      services.log.info(`ACP agent ${connection.name} disconnected: ${reason}`);
    });
    panel = options.panel === false ? undefined : AcpPanel.open(context.extensionUri, connection, findTerminal);
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
    const choice = await vscode.window.showWarningMessage(NO_AGENTS_MESSAGE, { modal: true, detail: NO_AGENTS_DETAIL }, OPEN_AGENT_SETTINGS);
    if (choice === OPEN_AGENT_SETTINGS) await vscode.commands.executeCommand('workbench.action.openSettings', `agentBash.${AGENTS_SETTING}`);
    return undefined;
  }
  if (agents.length === 1) return agents[0];
  const picked = await vscode.window.showQuickPick(
    agents.map((a) => ({ label: a.name, description: [a.command, ...(a.args ?? [])].join(' '), config: a })),
    { placeHolder: PICK_AGENT_PLACEHOLDER },
  );
  return picked?.config;
}
