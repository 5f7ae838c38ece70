import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { PolicyRule, ToolResult } from '../../src/core/contracts';
import { probeSandbox } from '../../src/exec/sandbox/sandboxProbe';
import { activateApi, alive, answerDialogs, layerRules, processesWithCommandLine, setPatterns, terminalsNamed, testing, workspaceDir, resultText, waitUntil, withoutBuiltinRules } from './testApi';

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

const text = resultText;

const ALLOW_ALL: PolicyRule[] = [{ match: '*', approval: 'allow', allowRedirects: true }];

describe('bridge: agent commands in VS Code terminals', () => {
  before(async () => {
    await setPatterns(ALLOW_ALL);
    await answerDialogs(undefined);
  });
  after(async () => {
    await setPatterns(undefined);
  });

  it('runs printf through a VS Code terminal and returns its output with the terminal id', async () => {
    const api = await activateApi();
    const updates: ToolResult[] = [];
    const result = await api.runBash({ command: "printf 'x\\ny\\n'" }, { onUpdate: (u) => updates.push(u) });
    assert.equal(result.isError, undefined);
    assert.match(text(result), /^x\ny\n\nWall time: \d+\.\d\d seconds$/);
    const id = result.details.terminalId;
    assert.match(id ?? '', /^term_[0-9a-f]{8}$/);
    assert.equal(updates[0]?.details.terminalId, id, 'the first update must carry the terminal id');
    assert.deepEqual(updates[0]?.content, []);
  });

  it('maps exit 3 to exitCode 3 and an error result', async () => {
    const api = await activateApi();
    const result = await api.runBash({ command: 'echo before; exit 3' });
    assert.equal(result.details.exitCode, 3);
    assert.equal(result.isError, true);
    assert.match(text(result), /^before\n\nWall time: [\d.]+ seconds\n\nCommand exited with code 3$/);
  });

  it('maps kill -9 $$ to 137', async () => {
    const api = await activateApi();
    const result = await api.runBash({ command: 'kill -9 $$' });
    assert.equal(result.details.exitCode, 137);
    assert.match(text(result), /Command exited with code 137$/);
  });

  it("a caller's commands share a persistent shell behind its terminal: an export carries, a function does not, another caller sees neither", async () => {
    const api = await activateApi();
    const t = await testing();
    // A function definition asks: allowed once here.
    await answerDialogs('Allow once');
    const first = await api.runBash({ command: 'export CARRIED=yes; probe_fn() { echo POISONED; }; echo "$$"' }, { callerName: 'Keeper' }).finally(() => answerDialogs(undefined));
    const shellPid = Number(text(first).split('\n')[0]);
    const again = await api.runBash({ command: 'echo "[$CARRIED] $$"; probe_fn 2>/dev/null || echo "no function"' }, { callerName: 'Keeper' });
    assert.match(text(again), new RegExp(`^\\[yes\\] ${shellPid}\\nno function\\n`));
    // What a call leaves running in the background ends with the call (its terminal is released).
    const bg = `sleep 300.${process.pid}9`;
    await api.runBash({ command: `${bg} & echo started` }, { callerName: 'Keeper' });
    await waitUntil(() => processesWithCommandLine(bg).length === 0, 5000, `${bg} to end with its call`);
    const other = await api.runBash({ command: 'echo "[$CARRIED]"' }, { callerName: 'Stranger' });
    assert.match(text(other), /^\[\]\n/);
    // Both ran in their callers' terminals, as a command of their own each.
    assert.equal(terminalsNamed('AB: Keeper').length, 1);
    assert.ok(t.services.bridge.list().every((c) => c.terminalId !== first.details.terminalId), 'the first command was released');
    // A timeout kills that shell; the caller's next command gets a fresh one (nothing carried).
    const timedOut = await api.runBash({ command: 'sleep 30', timeout: 1 }, { callerName: 'Keeper' });
    assert.equal(timedOut.details.timedOut, true);
    const fresh = await api.runBash({ command: 'echo "[$CARRIED]"' }, { callerName: 'Keeper' });
    assert.match(text(fresh), /^\[\]\n/);
  });

  it('a 3 s timeout on sleep 30 kills the whole process group', async () => {
    const api = await activateApi();
    const dir = workspaceDir();
    const pidFile = path.join(dir, 'timeout.pids');
    rmSync(pidFile, { force: true });
    // A unique argument finds the background sleep: `$!` inside the PID namespace is not a host pid.
    const child = `sleep 30.${process.pid}7`;
    const started = Date.now();
    // 3 s: long enough for a busy machine to start the sleep and write the file before it fires.
    const result = await api.runBash({ command: `${child} & echo started > ${pidFile}; wait`, timeout: 3 });
    const elapsed = Date.now() - started;
    assert.equal(result.details.timedOut, true);
    assert.equal(result.isError, true);
    assert.match(text(result), /\[Command timed out after 3 seconds\]/);
    assert.ok(elapsed < 25_000, `timeout took ${elapsed} ms: it waited for the 30 s sleep`);
    assert.equal(readFileSync(pidFile, 'utf8'), 'started\n');
    await waitUntil(() => processesWithCommandLine(child).length === 0, 3000, `${child} to die`);
  });

  it('keeps the last outputByteLimit bytes, cut at a UTF-8 boundary', async () => {
    const api = await activateApi();
    // 'X' (1 byte) + 'é' (2 bytes) + 9 digits = 12 bytes; the last 10 start inside 'é'.
    const term = await api.createTerminal({ command: "printf 'X\\xc3\\xa9123456789'", outputByteLimit: 10 });
    await term.waitForExit();
    const out = await term.currentOutput();
    assert.equal(out.output, '123456789');
    assert.equal(out.truncated, true);
    assert.deepEqual(out.exitStatus, { exitCode: 0, signal: null });
    await term.release();
  });

  it('a terminal created without outputByteLimit keeps a bounded tail (4 MiB)', async () => {
    const api = await activateApi();
    const term = await api.createTerminal({ command: 'yes 0123456789abcdef | head -c 6291456; printf END' });
    await term.waitForExit();
    const out = await term.currentOutput();
    assert.equal(out.truncated, true);
    assert.equal(Buffer.byteLength(out.output), 4 * 1024 * 1024);
    assert.ok(out.output.endsWith('END'));
    await term.release();
  });

  it('spills 5 MiB of output complete to the artifact', async () => {
    const api = await activateApi();
    const result = await api.runBash({ command: 'yes 0123456789abcdef | head -c 5242880' });
    const id = result.details.artifactId;
    assert.ok(id, `no artifact id in ${JSON.stringify(result.details)}`);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: 'agent-bash-artifact', path: `/${id}.log` }));
    const body = doc.getText();
    assert.equal(Buffer.byteLength(body), 5242880);
    assert.equal(body.slice(0, 34), '0123456789abcdef\n0123456789abcdef\n');
    assert.ok(Buffer.byteLength(text(result)) < 60 * 1024, 'inline text must stay bounded');
    assert.match(text(result), new RegExp(`artifact://${id}`));
  });

  it('release kills a running command and, with terminal.keep 0, disposes its terminal', async () => {
    const config = vscode.workspace.getConfiguration('agentBash');
    await config.update('terminal.keep', 0, vscode.ConfigurationTarget.Workspace);
    try {
      const api = await activateApi();
      const term = await api.createTerminal({ command: 'sleep', args: ['30'] }, { callerName: 'keep-zero' });
      const name = 'AB: keep-zero';
      await waitUntil(() => terminalsNamed(name).length === 1, 3000, 'the terminal to appear');
      const t = await testing();
      const pid = t.services.bridge.list().find((b) => b.terminalId === term.terminalId)?.pid;
      assert.ok(pid);
      await term.release();
      await term.release();
      assert.equal(alive(pid), false);
      await waitUntil(() => terminalsNamed(name).length === 0, 10000, 'the terminal to close');
      assert.throws(() => t.services.bridge.get(term.terminalId), { message: `Unknown terminal id: ${term.terminalId}` });
    } finally {
      await config.update('terminal.keep', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('caller terminals with nothing unreleased stay on screen for reading back, at most terminal.keep of them', async () => {
    const config = vscode.workspace.getConfiguration('agentBash');
    await config.update('terminal.keep', 1, vscode.ConfigurationTarget.Workspace);
    try {
      const api = await activateApi();
      const first = await api.createTerminal({ command: 'echo', args: ['kept-one'] }, { callerName: 'kept-one' });
      await first.waitForExit();
      await first.release();
      await sleep(100);
      assert.equal(terminalsNamed('AB: kept-one').length, 1, 'a released terminal should stay visible');
      const second = await api.createTerminal({ command: 'echo', args: ['kept-two'] }, { callerName: 'kept-two' });
      await second.waitForExit();
      await second.release();
      await waitUntil(() => terminalsNamed('AB: kept-one').length === 0, 10000, 'the older terminal to close');
      assert.equal(terminalsNamed('AB: kept-two').length, 1);
    } finally {
      await config.update('terminal.keep', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('what escaped the process group (setsid orphans) dies with its command, or at the latest at release', async () => {
    const api = await activateApi();
    const orphan = `sleep 300.${process.pid}8`;
    const term = await api.createTerminal({ command: `setsid ${orphan} < /dev/null > /dev/null 2>&1 & echo started` });
    assert.deepEqual(await term.waitForExit(), { exitCode: 0, signal: null });
    if (probeSandbox().contain) {
      // In its PID namespace the orphan dies with the shell, before anyone releases anything.
      await waitUntil(() => processesWithCommandLine(orphan).length === 0, 2000, `${orphan} to die with its shell`);
    } else {
      assert.equal(processesWithCommandLine(orphan).length, 1, 'the escaped sleep should still run after its shell exited');
    }
    await term.release();
    await waitUntil(() => processesWithCommandLine(orphan).length === 0, 2000, `${orphan} to die`);
  });

  it('closing a running terminal kills its process', async () => {
    const api = await activateApi();
    const term = await api.createTerminal({ command: 'sleep 31' });
    const t = await testing();
    const bt = t.services.bridge.list().find((b) => b.terminalId === term.terminalId);
    assert.ok(bt?.pid);
    const exit = term.waitForExit();
    bt.terminal.dispose();
    const status = await exit;
    assert.equal(status.exitCode, null);
    assert.equal(status.signal, 'SIGTERM');
    assert.equal(alive(bt.pid), false);
  });

  it('kill() ends a command with SIGTERM and the terminal shows it', async () => {
    const api = await activateApi();
    const term = await api.createTerminal({ command: 'sleep 32' });
    await sleep(100);
    await term.kill();
    assert.deepEqual(await term.waitForExit(), { exitCode: null, signal: 'SIGTERM' });
    await term.release();
  });

  it('runs 20 commands at once with no cross-talk', async () => {
    const api = await activateApi();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.runBash({ command: `echo start-${i}; sleep 0.2; echo end-${i}` })),
    );
    results.forEach((r, i) => assert.match(text(r), new RegExp(`^start-${i}\\nend-${i}\\n\\nWall time`)));
  });

  it('`git status` in a nested repository asks, and once allowed its core.fsmonitor script still does not run', async () => {
    const api = await activateApi();
    // A repository nested in the workspace has an unguarded config: the policy asks (gitRepository.ts);
    // the person allows it, and the neutralising environment keeps the configured program from running.
    const asked: string[] = [];
    (await testing()).services.prompter.setResponder((req) => {
      asked.push(`${req.message}\n${req.detail ?? ""}`);
      return 'Allow once';
    });
    const repo = path.join(workspaceDir(), `fsmonitor-repo-${process.pid}`);
    const canary = `${repo}.canary`;
    const hook = `${repo}.hook.sh`;
    rmSync(repo, { recursive: true, force: true });
    rmSync(canary, { force: true });
    writeFileSync(hook, `#!/bin/sh\necho ran >> '${canary}'\n`);
    chmodSync(hook, 0o755);
    execFileSync('git', ['init', '-q', repo]);
    execFileSync('git', ['-C', repo, 'config', 'core.fsmonitor', hook]);
    writeFileSync(path.join(repo, 'a'), 'x\n');
    try {
      const result = await api.runBash({ command: `git -C ${repo} status --short; echo done` });
      assert.equal(result.isError, undefined, text(result));
      assert.match(text(result), /done\n/);
      assert.equal(existsSync(canary), false, 'the repository-configured fsmonitor ran');
      assert.equal(asked.length, 1);
      assert.match(asked[0] ?? '', /\nCommand: git -C \S+fsmonitor-repo-\d+ status --short; echo done\n/);
    } finally {
      await answerDialogs(undefined);
      rmSync(repo, { recursive: true, force: true });
      rmSync(canary, { force: true });
      rmSync(hook, { force: true });
    }
  });
});

describe('policy and approvals in VS Code', () => {
  // These tests ask about everyday commands (`git status`, `printf`), which the built-in list would allow.
  before(async () => withoutBuiltinRules(true));
  after(async () => withoutBuiltinRules(false));
  afterEach(async () => {
    await setPatterns(undefined);
    await answerDialogs(undefined);
  });

  it('a denied command leaves no side effect', async () => {
    await setPatterns([{ match: 'touch *', approval: 'deny' }]);
    const api = await activateApi();
    const marker = path.join(workspaceDir(), 'denied-marker.txt');
    const result = await api.runBash({ command: `echo ok && touch ${marker}` });
    assert.equal(result.isError, true);
    assert.match(text(result), /^Command denied: `touch .*denied-marker\.txt` in segment 2 matched deny rule `touch \*`/);
    await sleep(300);
    assert.equal(existsSync(marker), false);
  });

  it('Allow once runs a prompted command', async () => {
    const t = await testing();
    await answerDialogs('Allow once');
    const marker = path.join(workspaceDir(), 'allowed-once.txt');
    const result = await (await activateApi()).runBash({ command: `touch ${marker}` });
    assert.equal(result.isError, undefined, text(result));
    assert.equal(existsSync(marker), true);
    assert.equal(t.services.prompter.asked.length, 1);
    assert.equal(t.services.prompter.asked[0].message, 'Agent Bash: run this command?');
    assert.ok(t.services.prompter.asked[0].detail?.startsWith(`Command: touch ${marker}\nWorking directory: `));
    rmSync(marker);
  });

  it('Deny (and dismissing) runs nothing', async () => {
    const api = await activateApi();
    for (const answer of ['Deny', undefined]) {
      await answerDialogs(answer);
      const marker = path.join(workspaceDir(), `denied-${answer ?? 'dismissed'}.txt`);
      const result = await api.runBash({ command: `touch ${marker}` });
      assert.equal(result.isError, true);
      assert.match(text(result), /^Command denied by the user: /);
      assert.equal(existsSync(marker), false);
    }
  });

  it('Always allow… saves a rule at a safe arity and stops asking', async () => {
    const t = await testing();
    const answers = ['Always allow…', 'Save to Workspace Settings'];
    t.services.prompter.setResponder(() => answers.shift());
    const api = await activateApi();
    const first = await api.runBash({ command: 'git status --short' });
    assert.equal(first.details.decision?.decision, 'prompt', text(first));
    assert.doesNotMatch(text(first), /Command denied/);
    const saved = vscode.workspace.getConfiguration('agentBash').inspect<PolicyRule[]>('patterns')?.workspaceValue;
    assert.deepEqual(saved, [{ match: 'git status *', approval: 'allow' }]);
    t.services.prompter.setResponder(() => 'Deny');
    const second = await api.runBash({ command: 'git status' });
    assert.equal(second.details.decision?.decision, 'allow', text(second));
    assert.equal(t.services.prompter.asked.length, 0, 'asked again after Always allow');
  });

  it('an invalid rule in the settings is left out, the valid ones still apply', async () => {
    const t = await testing();
    const config = vscode.workspace.getConfiguration('agentBash');
    await config.update('patterns', [{ match: 'echo *', approval: 'allow' }, { match: 'ls *', approval: 'maybe' }], vscode.ConfigurationTarget.Workspace);
    for (let i = 0; i < 100 && layerRules(t.services.settings(), 'workspace').length !== 1; i++) await sleep(20);
    assert.deepEqual(layerRules(t.services.settings(), 'workspace'), [{ match: 'echo *', approval: 'allow' }]);
    assert.equal((await activateApi()).explain('echo hi').decision, 'allow');
  });

  it('a settings change alters the decision live', async () => {
    const api = await activateApi();
    await setPatterns([{ match: 'echo *', approval: 'allow' }]);
    assert.equal(api.explain('echo hi').decision, 'allow');
    await setPatterns([{ match: 'echo *', approval: 'deny' }]);
    assert.equal(api.explain('echo hi').decision, 'deny');
    const result = await api.runBash({ command: 'echo hi' });
    assert.match(text(result), /^Command denied: /);
  });
});
