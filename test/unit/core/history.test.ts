import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovalAnswer, Approver, BashSettings, CallerInfo, ExecRequest, ExecResult, LocalExecutor, ShellAnalyzer, ToolResult } from '../../../src/core/contracts';
import {
  completeJobEntry,
  decidedBy,
  decisionLabel,
  endLabel,
  endSentence,
  entryDescription,
  entryFromResult,
  entryTooltip,
  HistoryList,
  outputHeader,
  sandboxMark,
  toastLevel,
  toastMessage,
  type HistoryEntry,
} from '../../../src/core/history';
import { FileArtifactStore } from '../../../src/core/output/artifacts';
import { BashPipeline } from '../../../src/core/pipeline';
import { createShellAnalyzer } from '../../../src/core/policy/analysis/shellAnalysis';
import { BashJobManager } from '../../../src/exec/jobManager';

const CALLER: CallerInfo = { kind: 'acp', name: 'Demo agent', sessionId: 's1' };

/** Prints `chunks`, then ends as `outcome` says; records what it ran. */
class ScriptedExecutor implements LocalExecutor {
  ran: string[] = [];
  chunks = ['hello\n'];
  outcome: Partial<Omit<ExecResult, 'summary'>> = { exitCode: 0 };
  async run(req: ExecRequest): Promise<ExecResult> {
    this.ran.push(req.command);
    for (const c of this.chunks) req.sink.push(c);
    return { exitCode: this.outcome.exitCode, timedOut: this.outcome.timedOut ?? false, cancelled: this.outcome.cancelled ?? false, ...(this.outcome.signal ? { signal: this.outcome.signal } : {}), summary: await req.sink.dump() };
  }
  async dispose(): Promise<void> {}
}

describe('core/history', () => {
  let analyzer: ShellAnalyzer;
  let root: string;
  let executor: ScriptedExecutor;
  let answer: ApprovalAnswer | 'abort';
  let controller: AbortController;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-history-'));
    executor = new ScriptedExecutor();
    answer = { kind: 'allow' };
    controller = new AbortController();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const settings: BashSettings = {
    ruleLayers: [{ layer: 'file', source: 'test rules', rules: [
      { match: 'rm *', approval: 'deny' },
      { match: 'git status*', approval: 'allow' },
    ] }],
    interceptor: { enabled: false, patterns: [] },
    maxTimeout: 0,
    asyncEnabled: true,
    asyncMaxJobs: 10,
    autoBackground: { enabled: false, thresholdMs: 60_000 },
    artifactHeadBytes: 1,
    outputMaxColumns: 768,
    shell: {},
    direnv: 'off',
  };
  const approver: Approver = {
    approve: async () => {
      if (answer === 'abort') {
        controller.abort();
        return { kind: 'deny' };
      }
      return answer;
    },
  };
  const run = async (command: string): Promise<{ entry: HistoryEntry; result: ToolResult }> => {
    const pipeline = new BashPipeline({
      settings: () => settings,
      analyzer,
      approver,
      artifacts: new FileArtifactStore(path.join(root, 'artifacts')),
      executor,
      sessionCwd: () => root,
      workspaceRoots: () => [root],
      sessionId: 'test',
    });
    const result = await pipeline.run({ command }, { signal: controller.signal });
    const entry = entryFromResult({ id: 'e1', at: 1, command, cwd: root, caller: CALLER, result, cancelled: controller.signal.aborted, elapsedMs: 20_000 });
    return { entry, result };
  };

  it('a rule allows: who decided is the rule, with exit status, duration and output size', async () => {
    const { entry } = await run('git status');
    assert.deepEqual(entry.decision, { outcome: 'allowed', decidedBy: 'rule', rule: 'git status*', layer: 'file', layerSource: 'test rules' });
    assert.equal(decisionLabel(entry.decision), 'allowed by rule `git status*` from test rules');
    assert.equal(entry.end, 'exit');
    assert.equal(entry.exitCode, 0);
    assert.equal(typeof entry.durationMs, 'number');
    assert.equal(entry.outputBytes, 'hello'.length, 'the output without the wall-time notice');
    assert.equal(executor.ran.length, 1);
  });

  it('a deny rule: denied by rule, nothing ran', async () => {
    const { entry } = await run('rm -rf build');
    assert.deepEqual(entry.decision, { outcome: 'denied', decidedBy: 'rule', rule: 'rm *', layer: 'file', layerSource: 'test rules' });
    assert.equal(decisionLabel(entry.decision), 'denied by rule `rm *` from test rules');
    assert.equal(entry.end, 'not-run');
    assert.equal(toastMessage(entry), 'Agent Bash: Rule `rm *` denies `rm -rf build`.');
    assert.equal(toastLevel(entry), 'warning');
    assert.equal(executor.ran.length, 0);
  });

  it('the user answers: once, this session, always, deny — each recorded as such', async () => {
    const cases: Array<[ApprovalAnswer, string]> = [
      [{ kind: 'allow' }, 'allowed by you, once'],
      [{ kind: 'session' }, 'allowed by you for this session'],
      [{ kind: 'always', rules: [{ match: 'ls *', approval: 'allow' }], scope: 'workspace' }, 'allowed by you, always'],
    ];
    for (const [a, label] of cases) {
      answer = a;
      const { entry } = await run('ls -la');
      assert.equal(decisionLabel(entry.decision), label);
      assert.equal(entry.end, 'exit');
    }
    assert.equal(executor.ran.length, 3);
    answer = { kind: 'deny' };
    const { entry } = await run('ls -la');
    assert.equal(decisionLabel(entry.decision), 'denied by you');
    assert.equal(toastMessage(entry), 'Agent Bash: You denied `ls -la`.');
    // The person's own Deny is no error of Agent Bash.
    assert.equal(toastLevel(entry), 'info');
    assert.equal(executor.ran.length, 3, 'the denied command did not run');
  });

  it('a result the sandbox refused part of carries the sandbox mark in its row', () => {
    const result = { content: [{ type: 'text' as const, text: 'x' }], details: { exitCode: 1, wallTimeMs: 5, decision: { decision: 'allow' as const, reason: 'r', rule: 'echo *' }, sandbox: { level: 'sandboxed' as const, refused: { paths: ['/etc/x'], hosts: ['example.org'] } } }, isError: true };
    const entry = entryFromResult({ id: 's', at: 1, command: 'echo x > /etc/x', caller: CALLER, result, cancelled: false });
    assert.deepEqual(entry.sandboxRefused, { paths: ['/etc/x'], hosts: ['example.org'] });
    assert.equal(sandboxMark(entry), 'sandbox refused writing /etc/x, reaching example.org');
    assert.equal(entryDescription(entry), 'Demo agent · allowed by rule `echo *` · Failed with exit 1 · sandbox refused writing /etc/x, reaching example.org · 5 ms · 1 B');
    assert.ok(entryTooltip(entry).includes('\nResult: Failed with exit 1\nSandbox: refused writing /etc/x, reaching example.org\n'), entryTooltip(entry));
  });

  it('an auto-approved read is marked read-only in its row, "write refused" when the fence refused it, and where it was not enforced', () => {
    const result = (readOnly: { enforced: boolean; refused?: boolean; why?: string }) => ({
      content: [{ type: 'text' as const, text: 'x' }],
      details: { exitCode: 1, wallTimeMs: 5, decision: { decision: 'allow' as const, reason: 'r', rule: 'cat *' }, sandbox: { level: 'sandboxed' as const, readOnly } },
      isError: true,
    });
    const refused = entryFromResult({ id: 'r', at: 1, command: 'cat x', caller: CALLER, result: result({ enforced: true, refused: true }), cancelled: false });
    assert.equal(refused.readOnly, 'refused');
    assert.equal(entryDescription(refused), 'Demo agent · allowed by rule `cat *` · Failed with exit 1 · read-only: write refused · 5 ms · 1 B');
    assert.ok(entryTooltip(refused).includes('\nSandbox: read-only: write refused\n'), entryTooltip(refused));
    const quiet = entryFromResult({ id: 'q', at: 1, command: 'cat x', caller: CALLER, result: result({ enforced: true }), cancelled: false });
    assert.equal(sandboxMark(quiet), 'read-only');
    const off = entryFromResult({ id: 'o', at: 1, command: 'cat x', caller: CALLER, result: result({ enforced: false, why: 'w' }), cancelled: false });
    assert.equal(sandboxMark(off), 'read-only not enforced here');
  });

  it("the caller's description shows in the row (60 characters) and the hover (500)", () => {
    const result = { content: [{ type: 'text' as const, text: 'x' }], details: { exitCode: 0, wallTimeMs: 5, decision: { decision: 'allow' as const, reason: 'r', rule: 'ls *' } }, isError: false };
    const long = `List   the\nfiles ${'y'.repeat(80)}`;
    const entry = entryFromResult({ id: 'd', at: 1, command: 'ls', caller: CALLER, result, cancelled: false, description: long });
    assert.equal(entry.description, long);
    assert.equal(entryDescription(entry), `Demo agent · “List the files ${'y'.repeat(44)}…” · allowed by rule \`ls *\` · Finished (exit 0) · 5 ms · 1 B`);
    assert.equal(entryTooltip(entry).split('\n')[1], `What it does (the caller's words): List the files ${'y'.repeat(80)}`);
    const plain = entryFromResult({ id: 'e', at: 1, command: 'ls', caller: CALLER, result, cancelled: false });
    assert.equal(entryDescription(plain), 'Demo agent · allowed by rule `ls *` · Finished (exit 0) · 5 ms · 1 B');
  });

  it('cancelling while the dialog is open is a cancel, not a Deny', async () => {
    answer = 'abort';
    const { entry, result } = await run('ls -la');
    assert.deepEqual(entry.decision, { outcome: 'cancelled' });
    // The caller that cancelled its own call is named; "you" only for the palette.
    assert.equal(toastMessage(entry), 'Agent Bash: `ls -la`: Stopped after 20 s: cancelled by Demo agent.');
    assert.equal(result.content[0]?.text, 'Command aborted', 'the agent keeps the spec string');
    assert.equal(executor.ran.length, 0);
    const palette = { ...entry, caller: { kind: 'palette' as const, name: 'You (Run Agent Bash)', sessionId: 'palette' } };
    assert.equal(toastMessage(palette), 'Agent Bash: `ls -la`: Stopped after 20 s: you cancelled it.');
    // The row names who cancelled: the caller (an MCP client, an agent), "you" only from the palette.
    assert.equal(endLabel(entry), 'Not run: cancelled by Demo agent');
    assert.equal(entryDescription(entry), 'Demo agent · cancelled before it ran · Not run: cancelled by Demo agent · 20 s');
    assert.equal(endLabel(palette), 'Not run: you cancelled it');
  });

  it('a signal is named with the exit code the agent got; cut output says how much', async () => {
    executor.outcome = { exitCode: 143, signal: 'SIGTERM' };
    executor.chunks = [`${'x'.repeat(99)}\n`.repeat(1024), `${'y'.repeat(99)}\n`.repeat(1024)];
    const { entry } = await run('git status');
    assert.equal(entry.end, 'signal');
    // The row says it in words; the signal and the code the agent read are a detail of the hover.
    assert.equal(endLabel(entry), 'Killed by a signal');
    assert.ok(entryTooltip(entry).includes('\nSignal: SIGTERM (the agent read exit 143)'), entryTooltip(entry));
    assert.ok(!entryDescription(entry).includes('SIGTERM') && !entryDescription(entry).includes('143'), entryDescription(entry));
    assert.equal(entry.outputBytes, 2 * 100 * 1024);
    assert.ok(entry.artifactId, 'the full output spilled to an artifact');
    assert.ok(entry.shownBytes !== undefined && entry.shownBytes < entry.outputBytes!);
    assert.match(toastMessage(entry), /^Agent Bash: `git status`: Killed by a signal after \d+ ms\. Output cut: the agent saw \d+ KB of 200 KB\. Show Output has all of it\.$/);
    assert.match(outputHeader(entry), /^\$ git status\nWorking directory: .*\nRun by: Demo agent\nDecision: allowed by rule `git status\*` from test rules\nResult: Killed by a signal after \d+ ms\n/);
    // People read what an artifact is; the agent's result keeps the bare `artifact://N`.
    assert.ok(entryTooltip(entry).includes(`\nFull output: artifact://${entry.artifactId} (output of git status, 200 KB)`), entryTooltip(entry));
  });

  it('a timeout ends in plain words', async () => {
    executor.outcome = { exitCode: undefined, timedOut: true };
    const { entry } = await run('git status');
    assert.equal(entry.end, 'timeout');
    assert.match(toastMessage(entry), /^Agent Bash: `git status`: Stopped after \d+ ms: it ran out of time\.$/);
  });

  it('a background job\'s entry gets its exit status when the job ends', () => {
    const started: HistoryEntry = {
      id: 'j', at: 1, command: 'make', caller: CALLER, decision: { outcome: 'allowed', decidedBy: 'user-once' }, end: 'background', jobId: '7',
    };
    const result: ToolResult = { content: [{ type: 'text', text: 'built\n\nWall time: 2.00 seconds\n\nCommand exited with code 2' }], details: { wallTimeMs: 2000, exitCode: 2 }, isError: true };
    const done = completeJobEntry(started, result, false, 2100);
    assert.equal(done.end, 'exit');
    assert.equal(done.exitCode, 2);
    assert.equal(done.durationMs, 2000);
    assert.equal(done.outputBytes, 'built'.length);
    assert.equal(decisionLabel(done.decision), 'allowed by you, once');
    assert.equal(completeJobEntry(started, undefined, true, 500).end, 'cancelled');
  });

  describe('background jobs end as finished, failed, killed or timed out', () => {
    /** Each command says how it ends: `ok`, `fail` (exit 2), `slow` (killed while it waits), `late` (timed out). */
    class JobExecutor implements LocalExecutor {
      async run(req: ExecRequest): Promise<ExecResult> {
        req.sink.push(`${req.command} started\n`);
        if (req.command === 'make slow') {
          await new Promise<void>((resolve) => (req.signal?.aborted ? resolve() : req.signal?.addEventListener('abort', () => resolve(), { once: true })));
          return { exitCode: undefined, timedOut: false, cancelled: true, summary: await req.sink.dump() };
        }
        const timedOut = req.command === 'make late';
        return { exitCode: timedOut ? undefined : req.command === 'make fail' ? 2 : 0, timedOut, cancelled: false, summary: await req.sink.dump() };
      }
      async dispose(): Promise<void> {}
    }

    /** Starts `command` as a job and records it as the history does; resolves with the entry once the job ended. */
    async function jobEntry(jobs: BashJobManager, command: string, kill?: string): Promise<HistoryEntry> {
      const pipeline = new BashPipeline({
        settings: () => ({ ...settings, ruleLayers: [{ layer: 'file', source: 'test rules', rules: [{ match: 'make *', approval: 'allow' }] }] }),
        analyzer,
        approver,
        artifacts: new FileArtifactStore(path.join(root, 'artifacts')),
        executor: new JobExecutor(),
        jobs,
        sessionCwd: () => root,
        workspaceRoots: () => [root],
        sessionId: 'test',
      });
      const result = await pipeline.run({ command, async: true });
      const started = entryFromResult({ id: command, at: 1, command, cwd: root, caller: CALLER, result, cancelled: false });
      assert.equal(started.end, 'background');
      assert.equal(endLabel(started), 'Running as a background job');
      const jobId = started.jobId as string;
      const ended = new Promise<HistoryEntry>((resolve) => {
        const stop = jobs.onDidComplete((job) => {
          if (job.id !== jobId) return;
          stop();
          resolve(completeJobEntry(started, job.result, job.state === 'cancelled', (job.endedAt ?? 0) - job.startedAt, job.cancelledBy));
        });
      });
      if (kill !== undefined) {
        await waitUntil(() => jobs.get(jobId)?.tail === `${command} started\n`);
        assert.equal(jobs.cancel(jobId, kill), true);
      }
      return ended;
    }

    async function waitUntil(check: () => boolean): Promise<void> {
      while (!check()) await new Promise((r) => setTimeout(r, 5));
    }

    it('each outcome is named in the row, and none stays Running', async () => {
      const jobs = new BashJobManager(10);
      try {
        const ok = await jobEntry(jobs, 'make ok');
        assert.equal(ok.end, 'exit');
        assert.equal(endLabel(ok), 'Finished (exit 0)');
        const fail = await jobEntry(jobs, 'make fail');
        assert.equal(fail.end, 'exit');
        assert.equal(endLabel(fail), 'Failed with exit 2');
        const late = await jobEntry(jobs, 'make late');
        assert.equal(late.end, 'timeout');
        // The row's label has no time (the row's duration says it); the sentence says it once.
        assert.equal(endLabel(late), 'Stopped: it ran out of time');
        assert.equal(toastLevel(late), 'warning');
        // A non-zero exit (a grep that found nothing) is information, not an error.
        assert.equal(toastLevel(fail), 'info');
        assert.match(endSentence(late), /^Stopped after \d+ ms: it ran out of time$/);
        const killed = await jobEntry(jobs, 'make slow', 'mcp-client');
        assert.equal(killed.end, 'cancelled');
        assert.equal(endLabel(killed), 'Killed by mcp-client');
        assert.equal(killed.jobId, jobs.list().find((j) => j.label === 'make slow')?.id);
        assert.equal(decisionLabel(killed.decision), 'allowed by rule `make *` from test rules');
      } finally {
        await jobs.dispose();
      }
    });

    it('a job killed without a name (its session ended) says only that it was killed', () => {
      const started: HistoryEntry = { id: 'k', at: 1, command: 'make', caller: CALLER, decision: { outcome: 'allowed', decidedBy: 'rule' }, end: 'background', jobId: 'job-3' };
      const result: ToolResult = { content: [{ type: 'text', text: 'Command aborted' }], details: { async: { state: 'failed', jobId: 'job-3', type: 'bash' } }, isError: true };
      const done = completeJobEntry(started, result, true, 1500);
      assert.equal(done.end, 'cancelled');
      assert.equal(endLabel(done), 'Killed');
      assert.equal(done.durationMs, 1500);
    });
  });

  it('decidedBy without a policy trace: refused input or a cancel', () => {
    assert.deepEqual(decidedBy(undefined, false), { outcome: 'invalid' });
    assert.deepEqual(decidedBy(undefined, true), { outcome: 'cancelled' });
    assert.deepEqual(decidedBy({ decision: 'prompt', answer: 'deny' }, true), { outcome: 'cancelled' });
  });

  it('the list is newest first, bounded, and drops stored junk', () => {
    const e = (id: string): HistoryEntry => ({ id, at: 1, command: id, caller: CALLER, decision: { outcome: 'allowed' }, end: 'exit' });
    const list = new HistoryList([e('old'), { nonsense: true } as unknown as HistoryEntry], 3);
    assert.deepEqual(list.entries.map((x) => x.id), ['old']);
    for (const id of ['a', 'b', 'c']) list.add(e(id));
    assert.deepEqual(list.entries.map((x) => x.id), ['c', 'b', 'a']);
    assert.equal(list.get('b')?.command, 'b');
    list.clear();
    assert.equal(list.entries.length, 0);
  });
});
