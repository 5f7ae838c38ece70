// One MCP client session: what it may see (its own background jobs and the artifacts its results
// named) and what it has running. Closing the session aborts its in-flight commands and cancels its
// jobs, so a client that goes away leaves nothing behind and never sees another client's work.
import type { JobManager, ToolResult } from '../core/contracts';

export const SESSION_CLOSED_MESSAGE = 'This MCP session is closed.';

export class McpCallerSession {
  private readonly jobIds = new Set<string>();
  private readonly artifactIds = new Set<string>();
  /** Running tool calls by JSON-RPC request id. */
  private readonly inflight = new Map<string | number, AbortController>();
  private closedFlag = false;
  /** The client's name (its `clientInfo.name`), once the server knows it. */
  private clientName: () => string = () => 'MCP client';

  constructor(
    readonly sessionId: string,
    private readonly jobs: JobManager | undefined,
  ) {}

  get closed(): boolean {
    return this.closedFlag;
  }

  /** How many tool calls are running now (an idle session has none). */
  get busy(): number {
    return this.inflight.size;
  }

  ownsJob(id: string): boolean {
    return this.jobIds.has(id);
  }

  ownsArtifact(id: string): boolean {
    return this.artifactIds.has(id);
  }

  /** Remembers the job and the artifact a result names, so this session (only) can reach them. */
  track(result: ToolResult): void {
    const job = result.details.async?.jobId;
    if (job) this.jobIds.add(job);
    const artifact = result.details.artifactId;
    if (artifact) this.artifactIds.add(artifact);
  }

  /** Lets this session read an artifact the MCP layer itself saved for it (a capped result's whole text). */
  ownArtifact(id: string): void {
    this.artifactIds.add(id);
  }

  /**
   * A signal for one tool call: aborted by the request's own signal (the client's cancel) or by
   * closing the session. `end()` must be called when the call settles.
   */
  begin(requestId: string | number, requestSignal: AbortSignal): { signal: AbortSignal; end(): void } {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    if (this.closedFlag || requestSignal.aborted) controller.abort();
    else requestSignal.addEventListener('abort', onAbort, { once: true });
    this.inflight.set(requestId, controller);
    return {
      signal: controller.signal,
      end: () => {
        requestSignal.removeEventListener('abort', onAbort);
        if (this.inflight.get(requestId) === controller) this.inflight.delete(requestId);
      },
    };
  }

  /** Aborts one running call (its HTTP connection dropped before the answer). */
  abortRequest(requestId: string | number): void {
    this.inflight.get(requestId)?.abort();
  }

  /** Where the client's name comes from (the server that read its `initialize`). */
  nameClient(name: () => string): void {
    this.clientName = name;
  }

  /**
   * Aborts every running call and cancels every running job this session started. The jobs' History
   * rows say who ended them: "Killed by the end of Claude Code's MCP session (idle)".
   */
  close(why?: string): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    for (const controller of this.inflight.values()) controller.abort();
    const by = sessionEndKiller(this.clientName(), why);
    for (const id of this.jobIds) this.jobs?.cancel(id, by);
  }
}

/** Who killed a job whose MCP session ended, as History shows it after "Killed by ". */
export function sessionEndKiller(client: string, why: string | undefined): string {
  return `the end of ${client}'s MCP session${why ? ` (${why})` : ''}`;
}
