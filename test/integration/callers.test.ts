import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { JobInfo, PolicyDecision, ToolResult } from '../../src/core/contracts';
import { activateApi, answerDialogs, setPatterns, testing, waitForTerminal, workspaceDir, withoutBuiltinRules } from './testApi';

function text(r: ToolResult): string {
  return r.content.map((c) => c.text).join('\n');
}

function partsText(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

describe('callers: LM tool, API, PTY, jobs, bang', () => {
  before(async () => {
    // These tests ask about everyday commands, which the built-in list would allow.
    await withoutBuiltinRules(true);
    await setPatterns([
      { match: 'echo *', approval: 'allow' },
      { match: 'read *', approval: 'allow' },
      { match: 'sleep *', approval: 'allow' },
      { match: 'rm *', approval: 'deny' },
    ]);
  });
  afterEach(async () => answerDialogs(undefined));
  after(async () => {
    await setPatterns(undefined);
    await withoutBuiltinRules(false);
  });

  it('vscode.lm.invokeTool runs an allowed command', async () => {
    await activateApi();
    await answerDialogs('Deny');
    const result = await vscode.lm.invokeTool('agent_bash', { input: { command: 'echo lm-ok' }, toolInvocationToken: undefined });
    assert.match(partsText(result), /^lm-ok\n\nWall time: [\d.]+ seconds$/);
    assert.equal((await testing()).services.prompter.asked.length, 0);
  });

  it('vscode.lm.invokeTool asks for a prompted command (no chat token) and runs it when allowed', async () => {
    await answerDialogs('Allow once');
    const result = await vscode.lm.invokeTool('agent_bash', { input: { command: 'printf prompted' }, toolInvocationToken: undefined });
    assert.match(partsText(result), /^prompted\n\nWall time/);
    assert.equal((await testing()).services.prompter.asked.length, 1);
  });

  it('vscode.lm.invokeTool returns the deny error without asking', async () => {
    await answerDialogs('Allow once');
    const result = await vscode.lm.invokeTool('agent_bash', { input: { command: 'rm -rf ./nothing-here' }, toolInvocationToken: undefined });
    assert.match(partsText(result), /^Command denied: `rm -rf \.\/nothing-here` in segment 1 matched deny rule `rm \*`/);
    assert.equal((await testing()).services.prompter.asked.length, 0);
  });

  it('with the interceptor on, cat still runs when no file-reading tool is registered', async () => {
    const api = await activateApi();
    const config = vscode.workspace.getConfiguration('agentBash');
    await config.update('interceptor.enabled', true, vscode.ConfigurationTarget.Workspace);
    await setPatterns([{ match: 'cat *', approval: 'allow' }]);
    try {
      const t = await testing();
      assert.equal(t.services.settings().interceptor.enabled, true);
      const result = await api.runBash({ command: 'cat README.txt' });
      assert.match(text(result), /^Agent Bash integration workspace\n\nWall time/);
    } finally {
      await config.update('interceptor.enabled', undefined, vscode.ConfigurationTarget.Workspace);
      await setPatterns([
        { match: 'echo *', approval: 'allow' },
        { match: 'read *', approval: 'allow' },
        { match: 'sleep *', approval: 'allow' },
        { match: 'rm *', approval: 'deny' },
      ]);
    }
  });

  it('a background job started through the LM tool reaches the model with its next call', async () => {
    await activateApi();
    const t = await testing();
    const finished = new Promise<JobInfo>((resolve) => {
      const off = t.jobs.onDidComplete((job) => {
        off();
        resolve(job);
      });
    });
    const started = await vscode.lm.invokeTool('agent_bash', { input: { command: 'sleep 0.2; echo late-result', async: true }, toolInvocationToken: undefined });
    const id = /Backgrounded as job (\S+);/.exec(partsText(started))?.[1];
    assert.ok(id, partsText(started));
    await finished;
    const next = await vscode.lm.invokeTool('agent_bash', { input: { command: 'echo next-call' }, toolInvocationToken: undefined });
    const parts = next.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : ''));
    assert.match(parts[0], /^next-call\n/);
    assert.match(parts[1], new RegExp(`^\\[Background job ${id} completed: sleep 0\\.2; echo late-result\\]\\nlate-result\\n`));
    const again = await vscode.lm.invokeTool('agent_bash', { input: { command: 'echo third' }, toolInvocationToken: undefined });
    assert.equal(again.content.length, 1, 'a job result is delivered once');
  });

  it('the API reports every run through onDidRunCommand', async () => {
    const api = await activateApi();
    const seen: string[] = [];
    const sub = api.onDidRunCommand((ran) => seen.push(`${ran.source}:${ran.command}:${ran.result.details.decision?.decision}`));
    await api.runBash({ command: 'echo evt' });
    sub.dispose();
    assert.deepEqual(seen, ['api:echo evt:allow']);
  });

  it('the API explains without running', async () => {
    const api = await activateApi();
    const d = api.explain('echo a && rm -rf b');
    assert.equal(d.decision, 'deny');
    assert.deepEqual(
      d.segments.map((s) => [s.text, s.decision]),
      [
        ['echo a', 'allow'],
        ['rm -rf b', 'deny'],
      ],
    );
    const viaCommand = await vscode.commands.executeCommand<PolicyDecision>('agentBash.explain', 'echo a && rm -rf b');
    assert.equal(viaCommand.decision, 'deny');
  });

  it('the API refuses a terminal whose command the policy denies', async () => {
    const api = await activateApi();
    await assert.rejects(api.createTerminal({ command: '/bin/bash', args: ['-c', 'rm -rf ./x'] }), {
      message: 'Command denied: `rm -rf ./x` in segment 1 matched deny rule `rm *`',
    });
  });

  it('pty: true runs in a terminal whose input reaches the program', async () => {
    const api = await activateApi();
    const running = api.runBash({ command: 'read x; echo "got $x"', pty: true, timeout: 20 });
    const term = await waitForTerminal('AB (pty): read x; echo "got $x"');
    await new Promise((r) => setTimeout(r, 300));
    term.sendText('hello', true);
    const result = await running;
    assert.match(text(result), /got hello/);
    assert.equal(result.details.exitCode, undefined);
    term.dispose();
  });

  it('Esc in a pty terminal kills the program', async () => {
    const api = await activateApi();
    const started = Date.now();
    const running = api.runBash({ command: 'sleep 30', pty: true, timeout: 60 });
    const term = await waitForTerminal('AB (pty): sleep 30');
    await new Promise((r) => setTimeout(r, 300));
    term.sendText('\x1b', false);
    const result = await running;
    assert.equal(result.isError, true);
    assert.match(text(result), /Command aborted|Command cancelled/);
    assert.ok(Date.now() - started < 10000, 'Esc did not stop the command');
    term.dispose();
  });

  it('closing a pty terminal kills the program', async () => {
    const api = await activateApi();
    const running = api.runBash({ command: 'sleep 31', pty: true, timeout: 60 });
    const term = await waitForTerminal('AB (pty): sleep 31');
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    term.dispose();
    const result = await running;
    assert.equal(result.isError, true);
    assert.ok(Date.now() - started < 5000, 'closing the terminal did not stop the command');
  });

  it('async: true backgrounds a job and delivers its result on completion', async () => {
    const api = await activateApi();
    const t = await testing();
    const done = new Promise<JobInfo>((resolve) => {
      const off = t.jobs.onDidComplete((job) => {
        off();
        resolve(job);
      });
    });
    const started = await api.runBash({ command: 'sleep 0.3; echo job-done', async: true });
    const m = /Backgrounded as job (\S+); result will be delivered automatically\.$/.exec(text(started));
    assert.ok(m, text(started));
    assert.equal(started.details.async?.state, 'running');
    const job = await done;
    assert.equal(job.id, m[1]);
    assert.equal(job.state, 'completed');
    assert.match(job.result?.content[0].text ?? '', /^job-done\n/);
  });

  it('a bang cd moves the session cwd for later commands', async () => {
    const api = await activateApi();
    const t = await testing();
    const before = t.cwd.get();
    const moved = await api.runBang('cd /tmp');
    assert.equal(moved?.exitCode, 0);
    assert.equal(t.cwd.get(), '/tmp');
    const pwd = await api.runBash({ command: 'echo $PWD' });
    assert.match(text(pwd), /^\/tmp\n/);
    t.cwd.set(before);
    assert.equal(t.cwd.get(), workspaceDir());
  });
});
