// Room vscode/commands/: the command palette (Run Agent Bash, Show Jobs, Open Artifact, Explain Policy Decision).
// The command palette: Run Agent Bash, Run Bang Command, Show Jobs, Open Artifact, Explain Policy
// Decision. Each command also takes an argument so scripts and tests can drive it without UI.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { ArtifactStore, CallerInfo, JobManager, PolicyDecision, ToolResult } from '../../core/contracts';
import { bangMessageText, runBang, type BangResult } from '../../exec/bang';
import { entryFromResult, toastLevel, toastMessage } from '../../core/history';
import { agentCommandsNowRunIn, artifactLabel, outputTitle, plainNotice } from '../../core/humanMessages';
import { openArtifact } from '../history/artifactProvider';
import type { HistoryStore } from '../history/historyStore';
import { openHistoryOutput } from '../history/historyView';
import { offerRefusalActions } from '../sandbox/sandboxRefusalActions';
import type { CommandLog } from '../history/commandLog';
import type { ExecutorHolder } from '../session/executorHolder';
import { ExplainDocuments, explainSandbox, showExplanation } from './explainDocument';
import { showJobsPick } from './jobsView';
import { parseTimeoutPrefix } from '../../core/timeoutPrefix';
import { askCommand } from './runBox';
import type { AgentBashServices, PipelineLike } from '../services';
import { SessionCwd } from '../session/sessionCwd';

const HISTORY_KEY = 'agentBash.history';
const HISTORY_MAX = 50;
/** Foreground runs longer than this get a progress notification with Cancel. */
const PROGRESS_AFTER_MS = 1000;
export const SHOW_OUTPUT_BUTTON = 'Show Output';
/** Your palette runs share the plain "Agent Bash" terminal; your bang commands share "AB: You". */
const PALETTE_CALLER: CallerInfo = { kind: 'palette', name: '', sessionId: 'palette' };
const BANG_CALLER: CallerInfo = { kind: 'bang', name: 'You', sessionId: 'bang' };

export interface CommandDeps extends AgentBashServices {
  tracked: PipelineLike & { runFrom(source: string, ...args: Parameters<PipelineLike['run']>): Promise<ToolResult> };
  jobs: JobManager;
  artifacts: ArtifactStore;
  executors: ExecutorHolder;
  commandLog: CommandLog;
  sessionId: string;
  cwd: SessionCwd;
  history: HistoryStore;
}

export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const reg = (id: string, fn: (...args: never[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  reg('agentBash.run', (arg?: unknown) => runAgentBash(context, deps, arg));
  reg('agentBash.runBang', (arg?: unknown) => runBangCommand(deps, arg));
  reg('agentBash.showJobs', () => showJobsPick(deps.jobs));
  reg('agentBash.openArtifact', (arg?: unknown) => openArtifactCommand(deps, arg));
  const explanations = new ExplainDocuments();
  context.subscriptions.push(explanations);
  reg('agentBash.explain', (arg?: unknown) => explainCommand(deps, explanations, arg));
}

async function runAgentBash(context: vscode.ExtensionContext, deps: CommandDeps, arg: unknown): Promise<ToolResult | undefined> {
  let input: Record<string, unknown>;
  if (typeof arg === 'string') input = { command: arg };
  else if (arg && typeof arg === 'object') input = { ...(arg as Record<string, unknown>) };
  else {
    const typed = await askCommand(context.globalState.get<string[]>(HISTORY_KEY) ?? []);
    if (!typed) return undefined;
    // `--timeout 30 npm test`: the box's timeout prefix (the box refused an unreadable one).
    const parsed = parseTimeoutPrefix(typed);
    input = 'invalid' in parsed ? { command: typed } : { command: parsed.command, ...(parsed.timeout !== undefined ? { timeout: parsed.timeout } : {}) };
  }
  // A non-string command is the pipeline's to reject; it must not land in the history as `[object Object]`.
  const command = typeof input.command === 'string' ? input.command : '';
  if (command.trim()) {
    const history = (context.globalState.get<string[]>(HISTORY_KEY) ?? []).filter((c) => c !== command);
    // Stored alongside the run, not before it: the write goes through the workbench's storage and
    // its round trip is no part of the command's latency (get() sees the new value at once).
    void Promise.resolve(context.globalState.update(HISTORY_KEY, [command, ...history].slice(0, HISTORY_MAX))).catch(() => undefined);
  }
  const controller = new AbortController();
  const running = deps.tracked.runFrom('palette', input, { signal: controller.signal, caller: PALETTE_CALLER });
  const timer = setTimeout(() => {
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Agent Bash: ${oneLine(command)}`, cancellable: true },
      (_progress, token) => {
        token.onCancellationRequested(() => controller.abort());
        return running;
      },
    );
  }, PROGRESS_AFTER_MS);
  const result = await running.finally(() => clearTimeout(timer));
  // The history has this run (the command log recorded it); its row keeps Show Output reachable.
  const id = deps.history.idOf(result);
  const entry = id === undefined ? undefined : deps.history.get(id);
  const refusedShown =
    entry !== undefined &&
    offerRefusalActions(result, typeof input.cwd === 'string' ? input.cwd : deps.cwd.get(), {
      // The same call outside the sandbox: the policy gate asks first, as for an agent's retry.
      runOutside: () => void runAgentBash(context, deps, { ...input, sandbox: 'off' }),
      showOutput: { label: SHOW_OUTPUT_BUTTON, run: () => void openHistoryOutput(entry) },
    });
  if (entry && !refusedShown) {
    const level = toastLevel(entry);
    const show = level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(plainNotice(toastMessage(entry)), SHOW_OUTPUT_BUTTON).then(async (choice) => {
      if (choice === SHOW_OUTPUT_BUTTON) await openHistoryOutput(entry);
    });
  }
  return result;
}

async function runBangCommand(deps: CommandDeps, arg: unknown): Promise<BangResult | undefined> {
  const command =
    typeof arg === 'string' ? arg : await vscode.window.showInputBox({ prompt: 'Your command (runs as you, no approval)', placeHolder: 'git status' });
  if (!command) return undefined;
  const controller = new AbortController();
  // Your bang commands share "AB: You"; Ctrl+C there or closing it cancels the one running.
  const terminals = deps.bridge.callerTerminals;
  const host = terminals.acquire(BANG_CALLER);
  const owner = { interrupt: () => controller.abort(), closed: () => controller.abort() };
  const cwdBefore = deps.cwd.get();
  const region = host.begin(command, cwdBefore === deps.workspaceRoots()[0] ? undefined : cwdBefore, owner);
  const write = (text: string) => region.write(Buffer.from(text, 'utf8'));
  const settings = deps.settings();
  let result: BangResult | undefined;
  const started = Date.now();
  try {
    result = await runBang(command, {
      cwd: cwdBefore,
      signal: controller.signal,
      onChunk: write,
      maxTimeout: settings.maxTimeout,
      executor: deps.executors.executor,
      sessionKey: `${deps.sessionId}:bang`,
      headBytes: settings.artifactHeadBytes * 1024,
      maxColumns: settings.outputMaxColumns,
    });
    const moved = result.newCwd !== undefined && result.newCwd !== cwdBefore;
    if (result.newCwd) deps.cwd.set(result.newCwd);
    if (moved) write(`\x1b[1m${agentCommandsNowRunIn(deps.cwd.get())}\x1b[0m\n`);
    const ok = result.exitCode === 0 && !result.cancelled && !result.timedOut;
    region.end(bangStatusLine(result), ok);
  } finally {
    if (!result) region.end('failed to start', false);
    host.forget(owner);
    terminals.release(host);
  }
  recordBang(deps, result, cwdBefore, Date.now() - started);
  deps.log.info(`! ${oneLine(command)} · exit=${result.exitCode ?? '-'} · cwd=${deps.cwd.get()}${result.cancelled ? ' · cancelled' : ''}`);
  deps.log.debug(bangMessageText(result));
  return result;
}

/** Your bang command in History (caller "You"), with the move of the agents' directory when it made one. */
function recordBang(deps: CommandDeps, bang: BangResult, cwd: string, ms: number): void {
  const text = bangMessageText(bang);
  const result: ToolResult = {
    content: [{ type: 'text', text }],
    details: { ...(bang.exitCode !== undefined ? { exitCode: bang.exitCode } : {}), ...(bang.timedOut ? { timedOut: true } : {}), ...(bang.cancelled ? {} : { wallTimeMs: ms }) },
    ...(bang.exitCode === 0 && !bang.timedOut && !bang.cancelled ? {} : { isError: true }),
  };
  const entry = entryFromResult({
    id: randomUUID(),
    at: Date.now(),
    command: bang.command,
    cwd,
    caller: BANG_CALLER,
    result,
    cancelled: bang.cancelled,
    elapsedMs: ms,
    decision: { outcome: 'allowed', own: true },
  });
  if (bang.newCwd !== undefined && bang.newCwd !== cwd) entry.note = agentCommandsNowRunIn(bang.newCwd);
  deps.history.add(entry, text);
}

/** The last line of a bang command's terminal, in plain words. */
export function bangStatusLine(result: BangResult): string {
  if (result.cancelled) return 'Stopped: you cancelled it.';
  if (result.timedOut) return 'Stopped: it ran out of time.';
  if (result.exitCode === undefined) return 'Ended without an exit status.';
  return result.exitCode === 0 ? 'Finished (exit 0).' : `Failed with exit ${result.exitCode}.`;
}

/** `arg`: an id or `artifact://<id>`; else a pick of this session's artifacts, named by what they hold. */
async function openArtifactCommand(deps: CommandDeps, arg: unknown): Promise<void> {
  const known = deps.commandLog.artifactRefs();
  let id: string | undefined;
  if (typeof arg === 'string') id = arg.replace(/^artifact:\/\//, '');
  else if (known.length) {
    const items = [...known].reverse().map((a) => ({ label: artifactLabel(a.id, a.command, a.bytes), id: a.id }));
    id = (await vscode.window.showQuickPick(items, { title: 'Agent Bash: open artifact' }))?.id;
  } else id = await vscode.window.showInputBox({ prompt: 'Artifact id (artifact://<id>)' });
  if (!id) return;
  if (!deps.artifacts.pathOf(id)) {
    void vscode.window.showErrorMessage(`Agent Bash: unknown artifact ${id}`);
    return;
  }
  const ref = known.find((a) => a.id === id);
  await openArtifact(id, ref ? outputTitle(ref.command, ref.at) : undefined);
}

/**
 * `arg`: a command (explained silently, for scripts) or `{command, show: true}` (the history's
 * Explain); from the palette it asks for the command. Shown as a read-only Markdown document.
 */
async function explainCommand(deps: CommandDeps, docs: ExplainDocuments, arg: unknown): Promise<PolicyDecision | undefined> {
  const given = typeof arg === 'string' ? arg : (arg as { command?: unknown } | undefined)?.command;
  const show = typeof arg !== 'string';
  const command = typeof given === 'string' ? given : await vscode.window.showInputBox({ prompt: 'Command to explain (nothing runs)' });
  if (!command) return undefined;
  const cwd = deps.cwd.get();
  // The document lists every check each command went through (its last section).
  const decision = deps.pipeline.explain(command, cwd, undefined, { trace: show });
  if (show) {
    const sandbox = explainSandbox(deps.sandbox);
    await showExplanation(docs, command, decision, { cwd, ...(sandbox ? { sandbox } : {}) });
  }
  return decision;
}

function oneLine(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
