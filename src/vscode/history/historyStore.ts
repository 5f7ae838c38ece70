// Room vscode/history/: what ran (command log, history store and view, output documents, artifacts).
// Every command any caller ran (or tried to), newest first, kept per workspace (workspaceState, the
// last 500). Fed by the command log, so palette, chat tool, ACP, API and later callers all appear.
// The result text of recent entries is kept in memory (and the first 8 KB in storage) for the output
// document of commands whose output never spilled to an artifact.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import * as vscode from 'vscode';
import type { CallerInfo, JobInfo, ToolResult } from '../../core/contracts';
import { completeJobEntry, decidedBy, entryFromResult, HistoryList, type HistoryEntry } from '../../core/history';
import { STOPPED } from '../../core/humanMessages';
import type { RanCommand, StartedCommand } from './commandLog';

const STORAGE_KEY = 'agentBash.commandHistory';
const TEXT_KEY = 'agentBash.commandHistoryText';
/** Stored result text per entry; the artifact has the rest. */
export const STORED_TEXT_BYTES = 8 * 1024;
const STORED_TEXTS = 100;
const ENDED_EARLY_KEPT = 100;
/** Results whose output was cut: their whole result text (what the agent saw) is kept in memory for this many. */
const AGENT_WINDOWS_KEPT = 20;
/** How often a running command's row says its time again. */
export const RUNNING_TICK_MS = 1000;
/** A row left running by an earlier window (it closed before the command ended). */
export const ENDED_WITH_WINDOW_NOTE = 'VS Code closed before it ended; no result was recorded';

/** Who ran it when the caller adapter did not name it (the command log's `source` names it). */
export function callerFromSource(source: string): CallerInfo {
  switch (source) {
    case 'palette':
      return { kind: 'palette', name: 'You (Run Agent Bash)', sessionId: 'palette' };
    case 'lm-tool':
    case 'agent':
      return { kind: 'lmTool', name: 'Chat agent', sessionId: 'chat' };
    case 'api':
      return { kind: 'api', name: 'An extension', sessionId: 'api' };
    case 'acp':
      return { kind: 'acp', name: 'ACP agent', sessionId: 'acp' };
    default:
      return { kind: 'api', name: source, sessionId: source };
  }
}

export class HistoryStore implements vscode.Disposable {
  private readonly list: HistoryList;
  private texts: Record<string, string>;
  private readonly byResult = new WeakMap<ToolResult, string>();
  /**
   * Jobs that ended before their entry was recorded (a quick job ends while its start result is still
   * on its way to the command log): applied when the entry arrives, so none stays "Running" forever.
   */
  private readonly endedEarly = new Map<string, JobInfo>();
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  /** What the agent saw of recent cut outputs (head, the cut, tail), whole; newest last. */
  private readonly windows = new Map<string, string>();
  /** Runs that started and have not ended yet: their runId and the entry that shows them. */
  private readonly runs = new Map<string, string>();
  /** While a row says "Running for …", the view is refreshed every RUNNING_TICK_MS. */
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly state: vscode.Memento,
    /** Where a command without a cwd ran: the session directory at the time. */
    private readonly defaultCwd: () => string,
    /** Why a bridge terminal's command was stopped, when it was (STOPPED.ctrlC for the person's Ctrl+C). */
    private readonly stopReason: (terminalId: string) => string | undefined = () => undefined,
  ) {
    // Stored data may be from an older or broken version (HistoryList drops what it cannot read).
    const stored = (state.get<(HistoryEntry | null)[]>(STORAGE_KEY) ?? []).map((e) =>
      e?.end === 'running' ? { ...e, end: 'failed' as const, note: ENDED_WITH_WINDOW_NOTE } : e,
    );
    this.list = new HistoryList(stored as HistoryEntry[]);
    this.texts = state.get<Record<string, string>>(TEXT_KEY) ?? {};
  }

  get entries(): readonly HistoryEntry[] {
    return this.list.entries;
  }

  get(id: string): HistoryEntry | undefined {
    return this.list.get(id);
  }

  /** The history entry a result was recorded as (the palette's toast opens its document). */
  idOf(result: ToolResult): string | undefined {
    return this.byResult.get(result);
  }

  textOf(id: string): string | undefined {
    return this.texts[id];
  }

  /** The whole result text the agent read, for a recent entry whose output was cut (else undefined). */
  agentWindowOf(id: string): string | undefined {
    return this.windows.get(id);
  }

  /** A command starts running: its row appears now ("Running for …") and is updated in place when it ends. */
  start(s: StartedCommand): HistoryEntry {
    const d = s.started.decision;
    const entry: HistoryEntry = {
      id: randomUUID(),
      at: Date.now(),
      command: s.command,
      cwd: path.resolve(this.defaultCwd(), s.cwd ?? '.'),
      caller: s.caller?.name ? s.caller : callerFromSource(s.source),
      decision: decidedBy(d, false),
      end: 'running',
      ...(s.description !== undefined ? { description: s.description } : {}),
      ...(s.started.sandbox && s.started.sandbox !== 'sandboxed' ? { outsideSandbox: true as const } : {}),
      ...(s.started.readOnly ? { readOnly: s.started.readOnly } : {}),
    };
    this.runs.set(s.runId, entry.id);
    this.add(entry);
    return entry;
  }

  record(ran: RanCommand): HistoryEntry {
    const startedAs = ran.runId !== undefined ? this.runs.get(ran.runId) : undefined;
    if (ran.runId !== undefined) this.runs.delete(ran.runId);
    const entry = entryFromResult({
      id: startedAs ?? randomUUID(),
      at: Date.now(),
      command: ran.command,
      cwd: path.resolve(this.defaultCwd(), ran.cwd ?? '.'),
      caller: ran.caller?.name ? ran.caller : callerFromSource(ran.source),
      result: ran.result,
      cancelled: ran.cancelled === true,
      ...(ran.elapsedMs !== undefined ? { elapsedMs: ran.elapsedMs } : {}),
      ...(ran.description !== undefined ? { description: ran.description } : {}),
    });
    if (entry.end === 'signal' && entry.terminalId !== undefined && this.stopReason(entry.terminalId) === STOPPED.ctrlC) entry.stoppedWithCtrlC = true;
    this.byResult.set(ran.result, entry.id);
    const text = ran.result.content.map((c) => c.text).join('\n');
    if (entry.shownBytes !== undefined && entry.outputBytes !== undefined && entry.shownBytes < entry.outputBytes) {
      this.windows.set(entry.id, text);
      if (this.windows.size > AGENT_WINDOWS_KEPT) this.windows.delete(this.windows.keys().next().value as string);
    }
    // Its running row becomes its result, where it is (else, a run that never started: a new row).
    if (startedAs !== undefined && this.list.replace(entry)) this.update(entry, text);
    else this.add(entry, text);
    return entry;
  }

  /** An entry built elsewhere (an ACP terminal); `text` is what its output document shows. */
  add(entry: HistoryEntry, text?: string): void {
    this.list.add(entry);
    const early = entry.jobId !== undefined ? this.endedEarly.get(entry.jobId) : undefined;
    if (early) {
      this.endedEarly.delete(early.id);
      this.completeJob(early);
    }
    if (text !== undefined) this.texts[entry.id] = cut(text);
    const kept = new Set(this.list.entries.slice(0, STORED_TEXTS).map((e) => e.id));
    for (const id of Object.keys(this.texts)) if (!kept.has(id)) delete this.texts[id];
    this.persist();
  }

  /** An entry changed after it was added (an ACP terminal exited). */
  update(entry: HistoryEntry, text?: string): void {
    if (text !== undefined) this.texts[entry.id] = cut(text);
    this.persist();
  }

  /** A background job ended: its entry gets the job's exit status, duration and output. */
  completeJob(job: JobInfo): void {
    const entry = this.list.findByJob(job.id);
    if (!entry) {
      this.endedEarly.set(job.id, job);
      // Bounded: a job whose entry never comes (a caller that is not recorded) is forgotten.
      if (this.endedEarly.size > ENDED_EARLY_KEPT) this.endedEarly.delete(this.endedEarly.keys().next().value as string);
      return;
    }
    const done = completeJobEntry(entry, job.result, job.state === 'cancelled', (job.endedAt ?? Date.now()) - job.startedAt, job.cancelledBy);
    this.list.replace(done);
    this.update(done, job.result?.content.map((c) => c.text).join('\n'));
  }

  clear(): void {
    this.list.clear();
    this.texts = {};
    this.windows.clear();
    this.persist();
  }

  private persist(): void {
    void this.state.update(STORAGE_KEY, this.list.entries);
    void this.state.update(TEXT_KEY, this.texts);
    this.emitter.fire();
    this.tick();
  }

  /** Refreshes the view every second while a row is running; stops when none is. */
  private tick(): void {
    const running = this.list.entries.some((e) => e.end === 'running');
    if (running && !this.ticker) {
      this.ticker = setInterval(() => {
        if (this.list.entries.some((e) => e.end === 'running')) this.emitter.fire();
        else this.stopTicker();
      }, RUNNING_TICK_MS);
    } else if (!running) this.stopTicker();
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  dispose(): void {
    this.stopTicker();
    this.emitter.dispose();
  }
}

function cut(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= STORED_TEXT_BYTES) return text;
  return `${bytes.subarray(0, STORED_TEXT_BYTES).toString('utf8')}\n[… ${bytes.length - STORED_TEXT_BYTES} more bytes not kept]`;
}
