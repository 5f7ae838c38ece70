// The MCP tools over the real pipeline and job manager (no transport): a call whose client sent no
// progress token is answered as a background job before the client's 60 s timeout would lose it, and
// bash_output follows that job to its end. The threshold is injected short; nothing here races a timer.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BashSettings, CallerInfo, ExecRequest, ExecResult, LocalExecutor, ShellAnalyzer } from '../../../src/core/contracts';
import { FileArtifactStore } from '../../../src/core/output/artifacts';
import { BashPipeline } from '../../../src/core/pipeline';
import { createShellAnalyzer } from '../../../src/core/policy/analysis/shellAnalysis';
import { BashJobManager } from '../../../src/exec/jobManager';
import { McpCallerSession } from '../../../src/mcp/mcpSession';
import { callMcpTool, MCP_MESSAGES, NO_PROGRESS_ANSWER_MS, type McpBackend } from '../../../src/mcp/mcpTools';

const CALLER: CallerInfo = { kind: 'mcp', name: 'unit-client', sessionId: 's1' };

/** Prints a line, then waits until the test releases it (or its signal aborts). */
class HeldExecutor implements LocalExecutor {
  started = 0;
  private release: (() => void) | undefined;
  private readonly released = new Promise<void>((r) => (this.release = r));
  finish(): void {
    this.release?.();
  }
  async run(req: ExecRequest): Promise<ExecResult> {
    this.started += 1;
    req.sink.push('building\n');
    const aborted = new Promise<void>((r) => req.signal?.addEventListener('abort', () => r(), { once: true }));
    await Promise.race([this.released, aborted]);
    if (req.signal?.aborted) return { exitCode: undefined, timedOut: false, cancelled: true, summary: await req.sink.dump() };
    req.sink.push('built\n');
    return { exitCode: 0, timedOut: false, cancelled: false, summary: await req.sink.dump() };
  }
  async dispose(): Promise<void> {}
}

const textOf = (r: { content: Array<{ text: string }> }): string => r.content.map((c) => c.text).join('\n');

describe('mcp: tools over the pipeline', function () {
  this.timeout(20_000);
  let analyzer: ShellAnalyzer;
  let root: string;
  let jobs: BashJobManager;
  let executor: HeldExecutor;
  let backend: McpBackend;
  let session: McpCallerSession;
  const settings: BashSettings = {
    ruleLayers: [{ layer: 'file', source: 'test rules', rules: [{ match: 'make *', approval: 'allow' }] }],
    interceptor: { enabled: false, patterns: [] },
    maxTimeout: 0,
    asyncEnabled: true,
    asyncMaxJobs: 10,
    // The setting is off: only the MCP layer's own threshold backgrounds the call.
    autoBackground: { enabled: false, thresholdMs: 60_000 },
    artifactHeadBytes: 1,
    outputMaxColumns: 768,
    shell: {},
    direnv: 'off',
  };

  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-tools-'));
    jobs = new BashJobManager(10);
    executor = new HeldExecutor();
    const pipeline = new BashPipeline({
      settings: () => settings,
      analyzer,
      approver: { approve: async () => ({ kind: 'deny' }) },
      artifacts: new FileArtifactStore(path.join(root, 'artifacts')),
      executor,
      jobs,
      sessionCwd: () => root,
      workspaceRoots: () => [root],
      sessionId: 'test',
    });
    backend = { run: (input, opts) => pipeline.run(input, opts), jobs, artifacts: new FileArtifactStore(path.join(root, 'a2')), asyncEnabled: () => true, noProgressAnswerMs: 50 };
    session = new McpCallerSession('s1', jobs);
  });
  afterEach(async () => {
    executor.finish();
    await jobs.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  const call = (name: string, args: unknown, extra: { onProgress?: (tail: string) => void } = {}) =>
    callMcpTool(backend, { name, args, session, caller: CALLER, signal: new AbortController().signal, ...extra });

  it('the default wait is 45 s, under the SDK client\'s 60 s request timeout', () => {
    assert.equal(NO_PROGRESS_ANSWER_MS, 45_000);
  });

  it('without a progress token, a call still running at the threshold answers with its job id and how to poll; bash_output follows it to the end', async () => {
    // The command cannot end before it is released: the answer can only be the background one.
    const r = await call('bash', { command: 'make all' });
    assert.ok(r);
    assert.equal(r.isError, false, textOf(r));
    assert.equal(textOf(r), `building\n\n${MCP_MESSAGES.backgrounded('job-1')}\n${MCP_MESSAGES.readJobWith('job-1')}`);
    assert.equal(session.ownsJob('job-1'), true);

    const running = await call('bash_output', { job_id: 'job-1' });
    assert.match(textOf(running!), /^Job job-1 is still running \(\d+ s so far\)\.\n\nLatest output:\nbuilding\n$/);

    executor.finish();
    const done = await call('bash_output', { job_id: 'job-1', wait_seconds: 15 });
    assert.equal(done?.isError, false, textOf(done!));
    assert.match(textOf(done!), /^building\nbuilt\n\nWall time: [\d.]+ seconds$/);
    assert.equal(jobs.get('job-1')?.state, 'completed');
  });

  it('with a progress token the call is not backgrounded: progress keeps the client waiting, and the result comes inline', async () => {
    const seen: Array<number | undefined> = [];
    const inner = backend;
    backend = {
      ...inner,
      run: (input, opts) => {
        seen.push(opts.backgroundAfterMs);
        return inner.run(input, opts);
      },
    };
    const tails: string[] = [];
    const pending = call('bash', { command: 'make all' }, { onProgress: (t) => tails.push(t) });
    // Released once its first output reached the client as progress.
    while (!tails.some((t) => t.includes('building'))) await new Promise((r) => setImmediate(r));
    executor.finish();
    const r = await pending;
    assert.match(textOf(r!), /^building\nbuilt\n\nWall time: [\d.]+ seconds$/);
    assert.deepEqual(seen, [undefined]);
    assert.equal(jobs.list().length, 0, 'no job was started');
  });
});
