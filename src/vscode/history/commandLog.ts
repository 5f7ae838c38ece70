// One log line per command (decision and rule, cwd, exit, wall time, artifact id) in the "Agent Bash"
// LogOutputChannel, and the `onDidRunCommand` event for the public API.
import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import type { CallerInfo, ToolResult } from '../../core/contracts';
import type { RunStart } from '../../core/pipeline';
import type { PipelineLike } from '../services';

export interface RanCommand {
  command: string;
  cwd?: string;
  result: ToolResult;
  source: string;
  /** Who ran it, when the caller adapter said (else `source` names it). */
  caller?: CallerInfo;
  /** The caller's abort signal fired: a cancel, not a failure. */
  cancelled?: boolean;
  /** How long the call took, end to end (approval included). */
  elapsedMs?: number;
  /** The caller's words on what the command does (`description`). */
  description?: string;
  /** Names the run from its start (StartedCommand.runId) to its end, so History updates its row in place. */
  runId?: string;
}

/** A command that passed its checks and starts running now (its end comes as a RanCommand with the same runId). */
export interface StartedCommand {
  runId: string;
  command: string;
  cwd?: string;
  source: string;
  caller?: CallerInfo;
  description?: string;
  started: RunStart;
}

/** An artifact of this session: what it is the output of, and its size when known. */
export interface ArtifactRef {
  id: string;
  command: string;
  /** When it was recorded (epoch ms): the document's title says it. */
  at: number;
  bytes?: number;
}

export function logLine(ran: RanCommand): string {
  const d = ran.result.details;
  const parts = [
    `$ ${ran.command.replace(/\s+/g, ' ').slice(0, 200)}`,
    `source=${ran.source}`,
    `decision=${d.decision ? `${d.decision.decision} (${d.decision.reason})` : 'none'}`,
    `cwd=${ran.cwd ?? '-'}`,
    `exit=${d.timedOut ? 'timeout' : d.exitCode ?? (ran.result.isError ? 'error' : 0)}`,
    `wall=${d.wallTimeMs === undefined ? '-' : `${d.wallTimeMs}ms`}`,
    `artifact=${d.artifactId ?? '-'}`,
  ];
  return parts.join(' · ');
}

export class CommandLog implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<RanCommand>();
  readonly onDidRunCommand = this.emitter.event;
  private readonly startEmitter = new vscode.EventEmitter<StartedCommand>();
  /** A command starts running (after its approval): History shows it from here. */
  readonly onDidStartCommand = this.startEmitter.event;

  private readonly artifacts: ArtifactRef[] = [];

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** The artifacts of this session (the last 100), oldest first, with the command each holds the output of. */
  artifactRefs(): ArtifactRef[] {
    return [...this.artifacts];
  }

  record(ran: RanCommand): void {
    const id = ran.result.details.artifactId;
    if (id) {
      const bytes = (ran.result.details.meta as { truncation?: { totalBytes?: number } } | undefined)?.truncation?.totalBytes;
      this.artifacts.push({ id, command: ran.command, at: Date.now(), ...(typeof bytes === 'number' ? { bytes } : {}) });
      if (this.artifacts.length > 100) this.artifacts.shift();
    }
    const line = logLine(ran);
    if (ran.result.isError) this.log.warn(line);
    else this.log.info(line);
    this.emitter.fire(ran);
  }

  /** The pipeline with every run recorded; `source` names the caller (palette, lm-tool, api, acp). */
  wrap(pipeline: PipelineLike, source = 'agent'): PipelineLike & { runFrom(source: string, ...args: Parameters<PipelineLike['run']>): Promise<ToolResult> } {
    const runFrom = async (src: string, ...args: Parameters<PipelineLike['run']>): Promise<ToolResult> => {
      const started = Date.now();
      const runId = randomUUID();
      const [rawInput, opts] = args;
      const input = rawInput as { command?: unknown; cwd?: unknown; description?: unknown } | undefined;
      const what = {
        // A rejected non-string command shows as JSON rather than `[object Object]`.
        command: typeof input?.command === 'string' ? input.command : ((JSON.stringify(input?.command) as string | undefined) ?? ''),
        ...(typeof input?.cwd === 'string' ? { cwd: input.cwd } : {}),
        ...(typeof input?.description === 'string' && input.description.trim() ? { description: input.description } : {}),
      };
      const onStart = (s: RunStart): void => {
        opts?.onStart?.(s);
        this.startEmitter.fire({ runId, ...what, source: src, ...(opts?.caller ? { caller: opts.caller } : {}), started: s });
      };
      const result = await pipeline.run(rawInput, { ...opts, onStart });
      this.record({
        ...what,
        runId,
        result,
        source: src,
        ...(opts?.caller ? { caller: opts.caller } : {}),
        ...(opts?.signal?.aborted ? { cancelled: true } : {}),
        elapsedMs: Date.now() - started,
      });
      return result;
    };
    return {
      explain: (command, cwd, env, opts) => pipeline.explain(command, cwd, env, opts),
      decide: (command, cwd) => pipeline.decide(command, cwd),
      run: (...args) => runFrom(source, ...args),
      runFrom,
    };
  }

  dispose(): void {
    this.emitter.dispose();
    this.startEmitter.dispose();
  }
}
