// activate(): read settings, build the services once, register every caller adapter (commands, LM
// tool, ACP client), and return the public API.
import { BashExpander } from './exec/bashExpander';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import * as vscode from 'vscode';
import { FileArtifactStore, pruneArtifactSessions } from './core/output/artifacts';
import { createShellAnalyzer } from './core/policy/analysis/shellAnalysis';
import { programsDeniedByRules } from './exec/sandbox/mounts/denyMasks';
import { BashJobManager } from './exec/jobManager';
import { killByEnv } from './exec/processTree';
import { markSweeper } from './exec/markSweeper';
import { NodePtyExecutor } from './exec/ptyExecutor';
import { killOrphans, ownerMark, OWNER_ENV } from './exec/sandbox/cleanup/orphanSweep';
import { sweepStaleTempDirs } from './exec/sandbox/cleanup/tempSweep';
import { SandboxRuntime } from './exec/sandbox/sandboxRuntime';
import { registerAcp } from './vscode/acp/acpCommands';
import { createApi, type AgentBashApi } from './vscode/api';
import { ArtifactContentProvider, ARTIFACT_SCHEME } from './vscode/history/artifactProvider';
import { DialogApprover } from './vscode/approvals/approvalDialog';
import { editPatternInBox } from './vscode/approvals/patternEditor';
import { registerCommands } from './vscode/commands/commands';
import { CommandLog } from './vscode/history/commandLog';
import { ExecutorHolder } from './vscode/session/executorHolder';
import { JobInbox } from './vscode/chat/jobInbox';
import { JobsStatusItem } from './vscode/commands/jobsView';
import { McpHost } from './vscode/mcp/mcpHost';
import { registerLmTool } from './vscode/chat/lmTool';
import { registerManageRules } from './vscode/rules/manageRules';
import { addAllowRule } from './vscode/rules/addAllowRule';
import { HistoryStore } from './vscode/history/historyStore';
import { registerHistoryView } from './vscode/history/historyView';
import { virtualDocumentText } from './vscode/history/outputDocument';
import { announceSavedRules } from './vscode/rules/savedRulesNotice';
import { ModalPrompter } from './vscode/approvals/modalPrompter';
import { SESSION_ENV } from './vscode/terminals/processMarks';
import { SandboxStatusItem } from './vscode/sandbox/sandboxUi';
import { TerminalPtyExecutor } from './vscode/terminals/ptyTerminal';
import { vscodeToolAvailable } from './vscode/chat/toolAvailability';
import type { AgentBashServices } from './vscode/services';
import { SessionCwd } from './vscode/session/sessionCwd';
import { SessionCwdStatus } from './vscode/session/sessionCwdStatus';
import { readMcpSettings, readUserRules, SettingsStore } from './vscode/settings/settings';
import { resolveShell } from './vscode/terminals/shellSettings';
import { VsCodeClientBridge } from './vscode/terminals/clientBridge';
import { LoginEnvironment } from './exec/loginEnvironment';
import { getShellConfig } from './exec/shellConfig';
import { createPipeline } from './exec/createPipeline';

export type { AgentBashApi } from './vscode/api';

let shutdown: (() => Promise<void>) | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<AgentBashApi> {
  const sessionId = `vscode-${randomUUID().slice(0, 8)}`;
  // What an earlier extension host left when it was killed where no PID namespace held its processes
  // (a /proc scan): off the activation path.
  const orphanSweep = setImmediate(() => {
    killOrphans();
    void sweepStaleTempDirs();
  });
  // Every process Agent Bash starts carries these marks (inherited by all its descendants, orphans
  // included), so what it started can be found and proven gone — by a later host too.
  const owner = ownerMark();
  const processEnv = (): NodeJS.ProcessEnv => ({ ...process.env, [SESSION_ENV]: sessionId, [OWNER_ENV]: owner });
  const log = vscode.window.createOutputChannel('Agent Bash', { log: true });
  const settings = new SettingsStore((problem) => log.warn(problem));
  const workspaceRoots = () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const workspaceCwd = () => workspaceRoots()[0] ?? process.cwd();
  const cwd = new SessionCwd(workspaceCwd);
  const shell = () => resolveShell(settings.current().shell);
  let sandboxStatus: SandboxStatusItem | undefined;
  const sandbox = new SandboxRuntime({
    settings: () => settings.sandbox(),
    workspaceRoots,
    maskedPrograms: () => programsDeniedByRules(settings.current().ruleLayers.flatMap((l) => l.rules)),
    onFallback: (message) => {
      log.warn(message);
      sandboxStatus?.warnFallback(message);
    },
  });
  sandboxStatus = new SandboxStatusItem(sandbox, settings);
  // The shared network namespace of sandboxed commands, started off the activation path so the
  // first agent command finds it listening.
  const warmNetwork = setImmediate(() => void sandbox.warmNetwork().catch(() => false));

  const analyzer = await createShellAnalyzer({ wasmDir: path.join(context.extensionPath, 'dist'), warmUp: 'later' });
  const prompter = new ModalPrompter();
  const approver = new DialogApprover(
    prompter,
    { add: (rules, scope) => settings.addRules(rules, scope), remove: (saved) => settings.removeRules(saved), layers: () => settings.ruleLayers() },
    announceSavedRules,
    editPatternInBox,
  );
  const artifactsRoot = path.join(context.globalStorageUri.fsPath, 'artifacts');
  const artifacts = new FileArtifactStore(path.join(artifactsRoot, sessionId));
  // Full outputs of earlier sessions are kept for a week; pruning runs in the background.
  void pruneArtifactSessions(artifactsRoot, artifacts.dir).then((removed) => {
    if (removed.length) log.info(`removed ${removed.length} artifact folder(s) older than 7 days`);
  });
  // The window's one login environment (exec/loginEnvironment.ts). The extension host's env already is
  // the login environment, so the default `-c` needs none; `agentBash.shell.args` with `-l` gets the
  // profile run once per window instead of once per shell.
  const loginEnv = new LoginEnvironment({ env: process.env, onNotice: (message) => log.warn(message) });
  const executors = new ExecutorHolder(settings, processEnv, sandbox, loginEnv);
  try {
    const s = settings.current().shell;
    // Resolved off the activation path, so the window's first command finds it done or under way.
    void loginEnv.start(getShellConfig({ ...(s.path ? { shellPath: s.path } : {}), shellArgs: s.args ?? ['-c'], env: processEnv() }), { keepNotice: true }).catch(() => undefined);
  } catch {
    // A shell that does not exist: the first command reports it.
  }
  const jobs = new BashJobManager(() => settings.current().asyncMaxJobs);
  const bridge = new VsCodeClientBridge({
    shell,
    // BridgeProcess applies the neutralising environment itself (commandEnv), as every route does.
    baseEnv: () => processEnv(),
    defaultCwd: () => cwd.get(),
    workspaceCwd,
    reveal: () => settings.terminalReveal(),
    keep: () => settings.terminalKeep(),
    sandbox,
    // The caller sessions' persistent shells, in the sandbox (issue 23): the executor the settings pick.
    sessions: executors.executor,
  });
  const pty = new TerminalPtyExecutor(() => {
    const s = settings.current().shell;
    return new NodePtyExecutor({ ...(s.path ? { shellPath: s.path } : {}), shellArgs: s.args ?? ['-c'], baseEnv: processEnv(), sandbox, loginEnv });
  });
  const expander = new BashExpander({ shell: shell().path });
  const composed = createPipeline({
    expander,
    settings: () => settings.current(),
    analyzer,
    approver,
    artifacts,
    bridge,
    executor: executors.executor,
    pty,
    jobs,
    toolAvailable: vscodeToolAvailable,
    sessionCwd: () => cwd.get(),
    workspaceRoots,
    sessionId,
    bridgeShell: () => {
      const s = shell();
      return { command: s.path, args: s.args };
    },
    bridgePollIntervalMs: 250,
    baseEnv: processEnv,
    sandbox,
    autoApproveSandboxed: () => settings.sandbox().autoApprove,
  });
  const pipeline = composed.pipeline;
  const commandLog = new CommandLog(log);
  const tracked = commandLog.wrap(pipeline);
  const history = new HistoryStore(context.workspaceState, () => cwd.get(), (terminalId) => bridge.stopReasonOf(terminalId));
  const stopJobFeed = jobs.onDidComplete((job) => history.completeJob(job));
  context.subscriptions.push(history, commandLog.onDidStartCommand((started) => history.start(started)), commandLog.onDidRunCommand((ran) => history.record(ran)), { dispose: stopJobFeed }, { dispose: () => clearImmediate(orphanSweep) }, { dispose: () => clearImmediate(warmNetwork) });
  const services: AgentBashServices = {
    bridge,
    pipeline: tracked,
    approver,
    prompter,
    settings: () => settings.current(),
    log,
    workspaceCwd: () => cwd.get(),
    workspaceRoots,
    processEnv,
    sandbox: composed.sandbox,
  };

  const jobsStatus = new JobsStatusItem(jobs);
  const cwdStatus = new SessionCwdStatus(cwd);
  const inbox = new JobInbox(jobs);
  context.subscriptions.push(
    log,
    settings,
    sandboxStatus,
    bridge,
    jobsStatus,
    cwdStatus,
    commandLog,
    vscode.workspace.registerTextDocumentContentProvider(
      ARTIFACT_SCHEME,
      new ArtifactContentProvider(artifacts, (uri) => virtualDocumentText(uri, { history, artifacts, jobs })),
    ),
    registerLmTool(services, inbox),
    inbox,
  );
  registerCommands(context, { ...services, tracked, jobs, artifacts, executors, commandLog, sessionId, cwd, history });
  registerHistoryView(context, {
    store: history,
    findTerminal: (id) => bridge.list().find((t) => t.terminalId === id)?.terminal,
    addAllowRule: async (command, where) => void (await addAllowRule(tracked, settings, command, where ?? cwd.get())),
  });
  registerManageRules(context, { layers: () => settings.ruleLayers(), explain: (command) => tracked.explain(command, cwd.get()) });
  registerAcp(context, services, history);
  // The MCP server (off unless agentBash.mcp.enabled): every MCP client goes through the same pipeline.
  const mcp = new McpHost({
    context,
    run: (input, opts) => tracked.runFrom('mcp', input, opts),
    jobs,
    artifacts,
    asyncEnabled: () => settings.current().asyncEnabled,
    settings: () => readMcpSettings(),
    log,
    cliPath: path.join(context.extensionPath, 'dist', 'cli.js'),
    userRules: () => readUserRules(),
  });
  context.subscriptions.push(mcp);
  void mcp.apply();

  shutdown = async () => {
    await Promise.allSettled([mcp.stop(), bridge.disposeAsync(), jobs.dispose(), executors.dispose(), loginEnv.dispose()]);
    // Whatever escaped its group (setsid, double fork) still carries the session mark; the sweep of
    // released commands still pending is part of that pass.
    markSweeper.cancel();
    killByEnv(SESSION_ENV, sessionId);
    sandbox.dispose();
    expander.dispose();
  };
  log.info(`Agent Bash active (session ${sessionId}, shell ${shell().path})`);
  return createApi({ services, tracked, jobs, executors, commandLog, sessionId, cwd, mcp, history, cwdStatus });
}

export async function deactivate(): Promise<void> {
  await shutdown?.();
  shutdown = undefined;
}
