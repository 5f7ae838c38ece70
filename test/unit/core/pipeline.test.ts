import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileArtifactStore } from '../../../src/core/output/artifacts';
import type {
  ApprovalAnswer,
  ApprovalRequest,
  Approver,
  BashSettings,
  ExecRequest,
  ExecResult,
  JobContext,
  JobInfo,
  JobManager,
  LocalExecutor,
  PtyExecutor,
  PtyRequest,
  PolicyRule,
  PtySession,
  ShellAnalyzer,
  ToolResult,
  UrlResolver,
} from '../../../src/core/contracts';
import { ASYNC_DISABLED_MESSAGE } from '../../../src/core/input';
import { DEFAULT_INTERCEPTOR_RULES, INTERCEPTOR_RETRY_NOTE } from '../../../src/core/interceptor';
import {
  ASYNC_JOBS_UNAVAILABLE,
  BashPipeline,
  BashPipelineDeps,
} from '../../../src/core/pipeline';
import { commandDeniedMessage, envRiskReason, userDeniedMessage } from '../../../src/core/policy/policyGate';
import { PTY_UNAVAILABLE_NOTICE } from '../../../src/core/output/results';
import { createShellAnalyzer } from '../../../src/core/policy/analysis/shellAnalysis';
import { FakeClientBridge } from './bridgeFakes';
import { BashJobManager } from '../../../src/exec/jobManager';
import { LocalShellExecutor } from '../../../src/exec/localExecutor';

const textOf = (r: ToolResult) => r.content.map((c) => c.text).join('\n');

class FakeExecutor implements LocalExecutor {
  calls: ExecRequest[] = [];
  chunks: string[] = ['hello\n'];
  outcome: Partial<Omit<ExecResult, 'summary'>> & { notice?: string } = { exitCode: 0 };
  async run(req: ExecRequest): Promise<ExecResult> {
    this.calls.push(req);
    for (const c of this.chunks) req.sink.push(c);
    const summary = await req.sink.dump(this.outcome.notice);
    return {
      exitCode: this.outcome.exitCode,
      timedOut: this.outcome.timedOut ?? false,
      cancelled: this.outcome.cancelled ?? false,
      ...(this.outcome.signal ? { signal: this.outcome.signal } : {}),
      summary,
    };
  }
  async dispose(): Promise<void> {}
}

class FakePtyExecutor implements PtyExecutor {
  calls: PtyRequest[] = [];
  start(req: PtyRequest): PtySession {
    this.calls.push(req);
    req.sink.push('pty out\n');
    return {
      write: () => {},
      resize: () => {},
      kill: () => {},
      result: req.sink.dump().then((summary) => ({ exitCode: 0, timedOut: false, cancelled: false, summary })),
    };
  }
}

class FakeApprover implements Approver {
  requests: ApprovalRequest[] = [];
  constructor(public answer: ApprovalAnswer = { kind: 'allow' }) {}
  async approve(req: ApprovalRequest): Promise<ApprovalAnswer> {
    this.requests.push(req);
    return this.answer;
  }
}

class FakeJobManager implements JobManager {
  registered: Array<{ label: string; done: Promise<ToolResult> }> = [];
  full = false;
  atCapacity(): boolean {
    return this.full;
  }
  register(label: string, runner: (ctx: JobContext) => Promise<ToolResult>): JobInfo {
    const id = String(this.registered.length + 1);
    const ctx: JobContext = { jobId: id, signal: new AbortController().signal, onProgress: () => {} };
    this.registered.push({ label, done: runner(ctx) });
    return { id, label, state: 'running', startedAt: Date.now(), tail: '' };
  }
  get(): JobInfo | undefined {
    return undefined;
  }
  list(): JobInfo[] {
    return [];
  }
  cancel(): boolean {
    return false;
  }
  onDidComplete(): () => void {
    return () => {};
  }
  onDidChange(): () => void {
    return () => {};
  }
  async dispose(): Promise<void> {}
}

class FakeUrlResolver implements UrlResolver {
  resolve(scheme: string, url: string): string | undefined {
    return scheme === 'skill' && url === 'skill://known' ? '/skills/known/SKILL.md' : undefined;
  }
}

/** `patterns`: the rules of the one rule layer these tests use. */
function baseSettings({ patterns, ...over }: Partial<BashSettings> & { patterns?: PolicyRule[] } = {}): BashSettings {
  return {
    ruleLayers: [{ layer: 'file', source: 'test rules', rules: patterns ?? [
      { match: 'rm *', approval: 'deny' },
      { match: 'npm *', approval: 'prompt' },
      { match: '*', approval: 'allow' },
    ] }],
    interceptor: { enabled: false, patterns: [...DEFAULT_INTERCEPTOR_RULES] },
    maxTimeout: 0,
    asyncEnabled: true,
    asyncMaxJobs: 100,
    autoBackground: { enabled: false, thresholdMs: 60_000 },
    artifactHeadBytes: 20,
    outputMaxColumns: 768,
    shell: {},
    direnv: 'off',
    ...over,
  };
}

describe('core/pipeline BashPipeline', () => {
  let analyzer: ShellAnalyzer;
  let root: string;
  let ws: string;
  let executor: FakeExecutor;
  let approver: FakeApprover;
  let settings: BashSettings;
  let artifacts: FileArtifactStore;

  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-pipeline-'));
    ws = path.join(root, 'ws');
    mkdirSync(path.join(ws, 'sub'), { recursive: true });
    artifacts = new FileArtifactStore(path.join(root, 'artifacts'));
    executor = new FakeExecutor();
    approver = new FakeApprover();
    settings = baseSettings();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const make = (over: Partial<BashPipelineDeps> = {}) =>
    new BashPipeline({
      settings: () => settings,
      analyzer,
      approver,
      artifacts,
      executor,
      sessionCwd: () => ws,
      workspaceRoots: () => [ws],
      sessionId: 'sess-1',
      ...over,
    });

  it('runs an allowed command locally and returns its output', async () => {
    const updates: ToolResult[] = [];
    const r = await make().run({ command: 'echo hello' }, { onUpdate: (u) => updates.push(u) });
    assert.equal(r.isError, undefined);
    assert.ok(textOf(r).startsWith('hello\n'));
    assert.match(textOf(r), /\n\nWall time: \d+\.\d{2} seconds/);
    assert.deepEqual(r.details.decision?.decision, 'allow');
    assert.equal(executor.calls.length, 1);
    const call = executor.calls[0]!;
    assert.equal(call.command, 'echo hello');
    assert.equal(call.cwd, ws);
    assert.equal(call.timeoutMs, 300_000);
    assert.equal(call.sessionKey, 'sess-1');
    assert.equal(approver.requests.length, 0);
    assert.ok(updates.some((u) => textOf(u).includes('hello')), 'streams the tail');
  });

  it('a denied command does not run and the error names the rule', async () => {
    const r = await make().run({ command: 'rm -rf build' });
    assert.equal(r.isError, true);
    assert.equal(textOf(r), commandDeniedMessage('`rm -rf build` in segment 1 matched deny rule `rm *`'));
    assert.ok(textOf(r).startsWith('Command denied: '));
    assert.equal(r.details.decision?.decision, 'deny');
    assert.equal(executor.calls.length, 0);
    assert.equal(approver.requests.length, 0);
  });

  it('deny hides inside a compound command too', async () => {
    const r = await make().run({ command: 'echo ok && rm -rf /tmp/x' });
    assert.equal(r.isError, true);
    assert.equal(executor.calls.length, 0);
  });

  it('prompt → the approver is asked with the raw command, cwd and decision; allow runs it', async () => {
    const r = await make().run({ command: 'npm i' });
    assert.equal(approver.requests.length, 1);
    const req = approver.requests[0]!;
    assert.equal(req.command, 'npm i');
    assert.equal(req.cwd, ws);
    assert.equal(req.decision.decision, 'prompt');
    assert.equal(r.isError, undefined);
    assert.equal(executor.calls.length, 1);
  });

  it('prompt → approver deny: nothing runs', async () => {
    approver.answer = { kind: 'deny' };
    const r = await make().run({ command: 'npm i' });
    assert.equal(r.isError, true);
    assert.equal(textOf(r), userDeniedMessage('`npm i` in segment 1 matched prompt rule `npm *`'));
    assert.equal(executor.calls.length, 0);
  });

  it('an env parameter that can load code (BASH_ENV, LD_PRELOAD, npm_config_*) makes an allowed command ask', async () => {
    approver.answer = { kind: 'deny' };
    for (const name of ['BASH_ENV', 'LD_PRELOAD', 'npm_config_script_shell', 'PATH']) {
      const r = await make().run({ command: 'echo hi', env: { [name]: './x' } });
      assert.equal(textOf(r), userDeniedMessage(envRiskReason(name)));
    }
    assert.equal(executor.calls.length, 0);
    assert.equal(envRiskReason('BASH_ENV'), 'the `env` parameter sets `BASH_ENV`, which can make programs load other code');
    assert.equal(make().explain('echo hi', undefined, { BASH_ENV: 'x' }).decision, 'prompt');
    assert.equal(make().explain('echo hi', undefined, { LANG: 'C' }).decision, 'allow');
    approver.answer = { kind: 'allow' };
    const ok = await make().run({ command: 'echo hi', env: { TZ: 'UTC' } });
    assert.equal(ok.isError, undefined);
    assert.equal(approver.requests.length, 4);
  });

  it("prompt → 'always': runs (the approver persisted the rule)", async () => {
    approver.answer = { kind: 'always', rules: [{ match: 'npm i', approval: 'allow' }], scope: 'workspace' };
    const r = await make().run({ command: 'npm i' });
    assert.equal(r.isError, undefined);
    assert.equal(executor.calls.length, 1);
  });

  it('no rules at all → prompt for everything', async () => {
    settings = baseSettings({ patterns: [] });
    await make().run({ command: 'echo hi' });
    assert.equal(approver.requests.length, 1);
  });

  it('explain() gives the decision without running anything', () => {
    const d = make().explain('rm -rf build');
    assert.equal(d.decision, 'deny');
    assert.equal(make().explain('echo hi', 'sub').decision, 'allow');
    assert.equal(executor.calls.length, 0);
  });

  it('validation failures are error results with the exact messages; nothing runs', async () => {
    assert.equal(textOf(await make().run({ command: 'ls', env: { 'A-B': 'x' } })), 'Invalid bash env name: A-B');
    settings = baseSettings({ asyncEnabled: false });
    assert.equal(textOf(await make().run({ command: 'ls', async: true })), ASYNC_DISABLED_MESSAGE);
    const bad = await make().run({ command: '' });
    assert.equal(bad.isError, true);
    assert.ok(textOf(bad).startsWith('Validation failed for tool "bash":'));
    assert.equal(executor.calls.length, 0);
  });

  it('cd prefix: the rest runs in the directory', async () => {
    await make().run({ command: 'cd sub && echo hi' });
    assert.equal(executor.calls[0]!.command, 'echo hi');
    assert.equal(executor.calls[0]!.cwd, path.join(ws, 'sub'));
  });

  it('an explicit cwd wins and the cd stays in the command', async () => {
    await make().run({ command: 'cd sub && echo hi', cwd: 'sub' });
    assert.equal(executor.calls[0]!.command, 'cd sub && echo hi');
    assert.equal(executor.calls[0]!.cwd, path.join(ws, 'sub'));
  });

  it('cwd errors are exact and nothing runs', async () => {
    const r = await make().run({ command: 'echo hi', cwd: 'nope' });
    assert.equal(textOf(r), `Working directory does not exist: ${path.join(ws, 'nope')}`);
    assert.equal(executor.calls.length, 0);
  });

  it('internal URLs: quoted path in the command, raw in env; local:// parents created', async () => {
    await make({ urlResolver: new FakeUrlResolver() }).run({
      command: 'cat skill://known > local://out/x.txt',
      env: { SRC: 'skill://known' },
    });
    const local = path.join(artifacts.dir, 'local');
    assert.equal(executor.calls[0]!.command, `cat '/skills/known/SKILL.md' > '${local}/out/x.txt'`);
    assert.deepEqual(executor.calls[0]!.env, { SRC: '/skills/known/SKILL.md' });
    assert.ok(existsSync(path.join(local, 'out')));
  });

  it('artifact://<id> resolves to the artifact file the truncation footer points at', async () => {
    const id = await artifacts.save('bash', 'full output\n');
    await make().run({ command: `grep full artifact://${id}` });
    assert.equal(executor.calls[0]!.command, `grep full '${artifacts.pathOf(id)}'`);
    const r = await make().run({ command: 'cat artifact://999' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /artifact:\/\/999/);
  });

  it('a URL rewrite can never add a command: `ls # local://x%0Arm…` is re-decided and the canary survives', async () => {
    settings = baseSettings({ patterns: [{ match: 'rm *', approval: 'deny' }, { match: 'ls *', approval: 'allow' }] });
    writeFileSync(path.join(ws, 'canary'), 'alive\n');
    const real = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'] });
    approver.answer = { kind: 'deny' };
    try {
      // Expanded, `rm -f canary` stands on a line of its own (and `#` comments out the closing quote).
      const r = await make({ executor: real }).run({ command: 'ls # local://x%0Arm%20-f%20canary%0A%23' });
      assert.equal(r.isError, true);
      assert.equal(r.details.decision?.decision, 'deny');
      assert.equal(textOf(r), commandDeniedMessage('`rm -f canary` in segment 2 matched deny rule `rm *`'));
      assert.equal(readFileSync(path.join(ws, 'canary'), 'utf8'), 'alive\n');
      // A rewrite that only adds text the analysis cannot read asks instead of allowing.
      const odd = await make({ executor: real }).run({ command: 'ls # local://x%0A%22' });
      assert.equal(odd.isError, true);
      assert.equal(approver.requests.length, 1);
      assert.equal(approver.requests[0]!.decision.decision, 'prompt');
      assert.match(approver.requests[0]!.decision.reason, /^the command could not be analysed with certainty: syntax error/);
      // Without URLs in play, the same allow rule runs the command (the guard is not a blanket prompt).
      approver.requests.length = 0;
      const ok = await make({ executor: real }).run({ command: 'ls # just a comment' });
      assert.equal(ok.isError, undefined, textOf(ok));
      assert.equal(approver.requests.length, 0);
      assert.match(textOf(ok), /^canary\n/);
    } finally {
      await real.dispose();
    }
  });

  it('a URL rewrite that keeps the same commands keeps the decision', async () => {
    settings = baseSettings({ patterns: [{ match: 'grep *', approval: 'allow' }] });
    const id = await artifacts.save('bash', 'full output\n');
    const r = await make().run({ command: `grep full artifact://${id}` });
    assert.equal(r.details.decision?.decision, 'allow');
    assert.equal(approver.requests.length, 0);
  });

  it('an unresolvable URL is an error naming it; nothing runs', async () => {
    const r = await make({ urlResolver: new FakeUrlResolver() }).run({ command: 'cat skill://unknown' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^Cannot resolve internal URL "skill:\/\/unknown"\./);
    assert.equal(executor.calls.length, 0);
  });

  it('a local:// cwd resolves under the artifacts dir', async () => {
    mkdirSync(path.join(artifacts.dir, 'local', 'w'), { recursive: true });
    await make().run({ command: 'ls', cwd: 'local://w' });
    assert.equal(executor.calls[0]!.cwd, path.join(artifacts.dir, 'local', 'w'));
  });

  describe('interceptor', () => {
    it('is off by default', async () => {
      await make({ toolAvailable: () => true }).run({ command: 'cat f' });
      assert.equal(executor.calls.length, 1);
    });

    it('blocks when enabled and the tool exists; the same command again runs', async () => {
      settings = baseSettings({ interceptor: { enabled: true, patterns: [...DEFAULT_INTERCEPTOR_RULES] } });
      const p = make({ toolAvailable: (t) => t === 'read' });
      const r = await p.run({ command: 'cat local://f.txt' });
      assert.equal(r.isError, true);
      assert.ok(textOf(r).startsWith('Blocked: Use the `read` tool instead of cat/head/tail.'));
      assert.ok(textOf(r).includes('\n\nOriginal command: cat local://f.txt\n\n'));
      assert.ok(textOf(r).endsWith(INTERCEPTOR_RETRY_NOTE));
      assert.equal(executor.calls.length, 0);
      assert.equal(existsSync(path.join(artifacts.dir, 'local')), false, 'a block happens before URL expansion');
      const again = await p.run({ command: 'cat local://f.txt' });
      assert.equal(again.isError, undefined);
      assert.equal(executor.calls.length, 1);
    });

    it('without a tool predicate nothing is blocked', async () => {
      settings = baseSettings({ interceptor: { enabled: true, patterns: [...DEFAULT_INTERCEPTOR_RULES] } });
      await make().run({ command: 'cat f' });
      assert.equal(executor.calls.length, 1);
    });

    it('policy deny comes before the interceptor', async () => {
      settings = baseSettings({
        patterns: [{ match: 'cat *', approval: 'deny' }],
        interceptor: { enabled: true, patterns: [...DEFAULT_INTERCEPTOR_RULES] },
      });
      const r = await make({ toolAvailable: () => true }).run({ command: 'cat f' });
      assert.ok(textOf(r).startsWith('Command denied: '));
    });
  });

  describe('timeouts and results', () => {
    it('clamps and reports the clamp', async () => {
      const r = await make().run({ command: 'echo hi', timeout: 5000 });
      assert.equal(executor.calls[0]!.timeoutMs, 3_600_000);
      assert.ok(textOf(r).includes('Timeout clamped to 3600s (requested 5000s; allowed range 1-3600s; `timeout` is in seconds, not milliseconds).'));
      assert.equal(r.details.timeoutSeconds, 3600);
      assert.equal(r.details.requestedTimeoutSeconds, 5000);
    });

    it('timeout 0 → no deadline', async () => {
      const r = await make().run({ command: 'echo hi', timeout: 0 });
      assert.equal(executor.calls[0]!.timeoutMs, 0);
      assert.equal(r.details.timeoutDisabled, true);
    });

    it('a global maxTimeout caps the default', async () => {
      settings = baseSettings({ maxTimeout: 60 });
      await make().run({ command: 'echo hi' });
      assert.equal(executor.calls[0]!.timeoutMs, 60_000);
    });

    it('non-zero exit → error result with the code', async () => {
      executor.outcome = { exitCode: 3 };
      const r = await make().run({ command: 'false' });
      assert.equal(r.isError, true);
      assert.equal(r.details.exitCode, 3);
      assert.match(textOf(r), /Command exited with code 3/);
    });

    it('executor timeout → timedOut error result with one timeout line', async () => {
      executor.outcome = { exitCode: undefined, timedOut: true, notice: 'Command timed out after 1 seconds' };
      const r = await make().run({ command: 'sleep 3', timeout: 1 });
      assert.equal(r.isError, true);
      assert.equal(r.details.timedOut, true);
      assert.equal(textOf(r).split('[Command timed out after 1 seconds]').length - 1, 1);
    });

    it('a cancel keeps the executor’s [Command cancelled] text', async () => {
      const ac = new AbortController();
      executor.outcome = { exitCode: undefined, cancelled: true, notice: 'Command cancelled' };
      executor.run = async function (this: FakeExecutor, req) {
        ac.abort();
        return FakeExecutor.prototype.run.call(this, req);
      };
      const r = await make().run({ command: 'sleep 9' }, { signal: ac.signal });
      assert.equal(r.isError, true);
      assert.equal(textOf(r).split('[Command cancelled]').length - 1, 1);
      assert.equal(textOf(r).includes('Command aborted'), false);
    });

    it('an already aborted signal runs nothing', async () => {
      const ac = new AbortController();
      ac.abort();
      const r = await make().run({ command: 'echo hi' }, { signal: ac.signal });
      assert.equal(textOf(r), 'Command aborted');
      assert.equal(executor.calls.length, 0);
    });

    it('a missing exit status is an error', async () => {
      executor.outcome = { exitCode: undefined };
      const r = await make().run({ command: 'echo hi' });
      assert.equal(r.isError, true);
      assert.ok(textOf(r).endsWith('\n\nCommand failed: missing exit status'));
    });
  });

  describe('routing', () => {
    it('client bridge (non-PTY) wins over the local executor', async () => {
      const bridge = new FakeClientBridge();
      bridge.handle.output = 'from client';
      bridge.handle.exit.resolve({ exitCode: 0, signal: null });
      const r = await make({ bridge, bridgePollIntervalMs: 5 }).run({ command: 'cd sub && git status | head' });
      assert.equal(executor.calls.length, 0);
      assert.deepEqual(bridge.created[0]!.args, ['-c', 'git status | head']);
      assert.equal(bridge.created[0]!.command, '/bin/bash');
      assert.equal(bridge.created[0]!.cwd, path.join(ws, 'sub'));
      assert.ok(textOf(r).startsWith('from client'));
      assert.equal(r.details.terminalId, 'term-1');
      assert.equal(bridge.handle.releaseCount, 1);
      // The line (cd-stripped) may run in the caller's persistent shell; the session is the pipeline's.
      assert.deepEqual(bridge.createdWith[0], { session: { key: 'sess-1', line: 'git status | head' } });
    });

    it('each caller session has a shell session of its own; an explicit session key wins', async () => {
      const bridge = new FakeClientBridge();
      bridge.handle.exit.resolve({ exitCode: 0, signal: null });
      const p = make({ bridge, bridgePollIntervalMs: 5 });
      await p.run({ command: 'true' }, { caller: { kind: 'lmTool', name: 'Copilot', sessionId: 'chat-1' } });
      await p.run({ command: 'true' }, { caller: { kind: 'acp', name: 'Agent', sessionId: 'conn-2' } });
      await p.run({ command: 'true' }, { sessionKey: 'mine', caller: { kind: 'acp', name: 'Agent', sessionId: 'conn-2' } });
      assert.deepEqual(
        bridge.createdWith.map((o) => o.session?.key),
        ['sess-1:lmTool:chat-1', 'sess-1:acp:conn-2', 'mine'],
      );
    });

    it('the caller\'s shell session is warmed before the policy decides, for bridge lines only', async () => {
      const bridge = new FakeClientBridge();
      const warmed: string[] = [];
      let createdWhenWarmed = -1;
      bridge.warm = (s) => {
        warmed.push(`${s.key}@${s.cwd}${s.sandbox ? ':off' : ''}`);
        createdWhenWarmed = bridge.created.length;
      };
      bridge.handle.exit.resolve({ exitCode: 0, signal: null });
      const caller = { kind: 'lmTool' as const, name: 'Copilot', sessionId: 'chat-9' };
      await make({ bridge, bridgePollIntervalMs: 5 }).run({ command: 'true', sandbox: 'off' }, { caller });
      assert.deepEqual(warmed, [`sess-1:lmTool:chat-9@${ws}:off`]);
      assert.equal(createdWhenWarmed, 0);
      // A PTY line and a background job take other routes: no shell is warmed for them.
      await make({ bridge, bridgePollIntervalMs: 5, pty: new FakePtyExecutor() }).run({ command: 'top', pty: true });
      await make({ bridge, bridgePollIntervalMs: 5, jobs: new FakeJobManager() }).run({ command: 'make', async: true });
      assert.equal(warmed.length, 1);
    });

    it("the caller's description reaches the terminal the bridge creates", async () => {
      const bridge = new FakeClientBridge();
      bridge.handle.exit.resolve({ exitCode: 0, signal: null });
      await make({ bridge, bridgePollIntervalMs: 5 }).run({ command: 'git status', description: 'Show the working tree' });
      assert.deepEqual(bridge.createdWith[0], { description: 'Show the working tree', session: { key: 'sess-1', line: 'git status' } });
    });

    it('the environment stage (direnv) shapes every route: bridge, PTY, local and background jobs', async () => {
      const seen: string[] = [];
      const environment = async (i: { cwd: string; env?: Record<string, string>; timeoutMs: number }) => {
        seen.push(`${i.cwd}@${i.timeoutMs}:${JSON.stringify(i.env ?? null)}`);
        return { env: { ...i.env, FROM_ENVRC: '1' }, unset: ['OLD', 'bad-name'] };
      };
      const bridge = new FakeClientBridge();
      bridge.handle.exit.resolve({ exitCode: 0, signal: null });
      await make({ bridge, bridgePollIntervalMs: 5, environment }).run({ command: 'make', env: { A: 'b' }, timeout: 7 });
      assert.deepEqual(bridge.created[0]!.args, ['-c', 'unset -v OLD; make']);
      // In a persistent shell the same unsets go with the line (the executor applies them).
      assert.deepEqual(bridge.createdWith[0]!.session, { key: 'sess-1', line: 'make', unset: ['OLD', 'bad-name'] });
      assert.deepEqual(bridge.created[0]!.env, [
        { name: 'A', value: 'b' },
        { name: 'FROM_ENVRC', value: '1' },
      ]);

      const pty = new FakePtyExecutor();
      await make({ pty, environment }).run({ command: 'top', pty: true });
      assert.equal(pty.calls[0]!.command, 'top');
      assert.deepEqual(pty.calls[0]!.unset, ['OLD', 'bad-name']);
      assert.deepEqual(pty.calls[0]!.env, { FROM_ENVRC: '1' });

      await make({ environment }).run({ command: 'ls', cwd: 'sub' });
      assert.equal(executor.calls[0]!.command, 'ls');
      assert.deepEqual(executor.calls[0]!.unset, ['OLD', 'bad-name']);
      assert.deepEqual(executor.calls[0]!.env, { FROM_ENVRC: '1' });

      const jobs = new FakeJobManager();
      await make({ jobs, environment }).run({ command: 'make all', async: true });
      await jobs.registered[0]!.done;
      assert.deepEqual(executor.calls[1]!.env, { FROM_ENVRC: '1' });
      assert.equal(executor.calls[1]!.sessionKey, 'sess-1:async:1');

      assert.deepEqual(seen, [
        `${ws}@7000:{"A":"b"}`,
        `${ws}@300000:null`,
        `${path.join(ws, 'sub')}@300000:null`,
        `${ws}@300000:null`,
      ]);
    });

    it('without an environment stage the caller env goes through as is and nothing is unset', async () => {
      await make().run({ command: 'ls', env: { A: 'b' } });
      assert.deepEqual(executor.calls[0]!.env, { A: 'b' });
      assert.equal('unset' in executor.calls[0]!, false);
    });

    it('the environment stage gets the call’s signal, and an abort during it runs nothing', async () => {
      const ac = new AbortController();
      let got: AbortSignal | undefined;
      const environment = async (i: { signal?: AbortSignal }) => {
        got = i.signal;
        ac.abort();
        return {};
      };
      const r = await make({ environment }).run({ command: 'ls' }, { signal: ac.signal });
      assert.equal(got, ac.signal);
      assert.equal(textOf(r), 'Command aborted');
      assert.equal(executor.calls.length, 0);
    });

    it('a denied command never reaches the environment stage', async () => {
      let called = 0;
      await make({ environment: async () => (called++, {}) }).run({ command: 'rm -rf build' });
      assert.equal(called, 0);
      assert.equal(executor.calls.length, 0);
    });

    it('a bridge without the terminal capability is not used', async () => {
      const bridge = new FakeClientBridge();
      bridge.capabilities.terminal = false;
      await make({ bridge }).run({ command: 'echo hi' });
      assert.equal(bridge.created.length, 0);
      assert.equal(executor.calls.length, 1);
    });

    it('pty:true skips the bridge and uses the PTY executor', async () => {
      const bridge = new FakeClientBridge();
      const pty = new FakePtyExecutor();
      const r = await make({ bridge, pty }).run({ command: 'top', pty: true });
      assert.equal(bridge.created.length, 0);
      assert.equal(pty.calls.length, 1);
      assert.ok(textOf(r).startsWith('pty out'));
    });

    it('pty:true without a PTY runs locally with the notice', async () => {
      const r = await make().run({ command: 'top', pty: true });
      assert.equal(executor.calls.length, 1);
      assert.ok(textOf(r).includes(PTY_UNAVAILABLE_NOTICE));
    });

    it('async:true registers a job with its own shell and returns at once', async () => {
      const jobs = new FakeJobManager();
      const r = await make({ jobs }).run({ command: 'make all' });
      assert.equal(jobs.registered.length, 0, 'foreground by default');
      const bg = await make({ jobs }).run({ command: 'make all', async: true });
      assert.match(textOf(bg), /Backgrounded as job 1; result will be delivered automatically\.$/);
      assert.deepEqual(bg.details.async, { state: 'running', jobId: '1', type: 'bash' });
      assert.equal(jobs.registered[0]!.label, 'make all');
      const done = await jobs.registered[0]!.done;
      assert.ok(textOf(done).startsWith('hello'));
      assert.equal(executor.calls[1]!.sessionKey, 'sess-1:async:1');
      assert.equal(r.details.async, undefined);
    });

    it('async without a job manager, or at capacity, is an error', async () => {
      assert.equal(textOf(await make().run({ command: 'x', async: true })), ASYNC_JOBS_UNAVAILABLE);
      const jobs = new FakeJobManager();
      jobs.full = true;
      const r = await make({ jobs }).run({ command: 'x', async: true });
      assert.match(textOf(r), /Too many background jobs are running \(limit 100\)/);
      assert.equal(executor.calls.length, 0);
    });

    describe('auto-background (real BashJobManager)', () => {
      class SlowExecutor extends FakeExecutor {
        /** Set once the command has ended: a result returned before it was backgrounded, not waited for. */
        finished = false;
        constructor(private readonly ms: number) {
          super();
        }
        override async run(req: ExecRequest): Promise<ExecResult> {
          req.sink.push('first line\n');
          await new Promise((r) => setTimeout(r, this.ms));
          this.finished = true;
          return super.run(req);
        }
      }
      const auto = (thresholdMs: number) => {
        settings.autoBackground = { enabled: true, thresholdMs };
      };

      it('a command that ends within the threshold returns inline and is never delivered', async () => {
        auto(2000);
        const jobs = new BashJobManager(10);
        const delivered: string[] = [];
        jobs.onDidComplete((j) => delivered.push(j.id));
        const r = await make({ jobs, executor: new SlowExecutor(20) }).run({ command: 'make all' });
        assert.match(textOf(r), /^first line\nhello\n\nWall time/);
        assert.equal(r.details.async, undefined);
        await new Promise((res) => setTimeout(res, 30));
        assert.deepEqual(delivered, []);
        await jobs.dispose();
      });

      it('a longer one is backgrounded at the threshold with its output so far, then delivered', async () => {
        auto(100);
        const jobs = new BashJobManager(10);
        const delivered = new Promise<JobInfo>((res) => jobs.onDidComplete(res));
        const executor = new SlowExecutor(4000);
        const r = await make({ jobs, executor }).run({ command: 'make all' });
        assert.equal(executor.finished, false, 'returned at the threshold, before the command ended');
        assert.match(textOf(r), /^first line\n\nBackgrounded as job job-1; result will be delivered automatically\.$/);
        assert.deepEqual(r.details.async, { state: 'running', jobId: 'job-1', type: 'bash' });
        const job = await delivered;
        assert.equal(job.state, 'completed');
        assert.match(job.result?.content[0]?.text ?? '', /^first line\nhello\n/);
        await jobs.dispose();
      });

      it("a caller's backgroundAfterMs backgrounds a run with auto-background off (an MCP client without progress)", async () => {
        settings.autoBackground = { enabled: false, thresholdMs: 60_000 };
        const jobs = new BashJobManager(10);
        const delivered = new Promise<JobInfo>((res) => jobs.onDidComplete(res));
        const r = await make({ jobs, executor: new SlowExecutor(400) }).run({ command: 'make all' }, { backgroundAfterMs: 50 });
        assert.match(textOf(r), /^first line\n\nBackgrounded as job job-1; result will be delivered automatically\.$/);
        assert.equal((await delivered).state, 'completed');
        const quick = await make({ jobs, executor: new SlowExecutor(1) }).run({ command: 'make all' }, { backgroundAfterMs: 5_000 });
        assert.equal(quick.details.async, undefined);
        await jobs.dispose();
      });

      it('a zero threshold backgrounds at once; the bridge wins over auto-background', async () => {
        auto(0);
        const jobs = new BashJobManager(10);
        const r = await make({ jobs, executor: new SlowExecutor(50) }).run({ command: 'make all' });
        assert.match(textOf(r), /Backgrounded as job job-1;/);
        const bridge = new FakeClientBridge();
        bridge.handle.exit.resolve({ exitCode: 0, signal: null });
        const viaBridge = await make({ jobs, bridge, bridgePollIntervalMs: 5 }).run({ command: 'make all' });
        assert.equal(viaBridge.details.async, undefined);
        assert.equal(bridge.created.length, 1);
        await jobs.dispose();
      });
    });

    it('a long command reaches the job manager whole (the manager cuts the label)', async () => {
      const jobs = new FakeJobManager();
      const long = `echo ${'a'.repeat(200)}`;
      await make({ jobs }).run({ command: long, async: true });
      assert.equal(jobs.registered[0]!.label, long);
    });
  });
});
