// One terminal per caller session: a caller's foreground commands share one VS Code terminal, two
// callers get two, overlapping commands of one caller get a second, and each command's id, output and
// exit stay its own.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { PolicyRule } from '../../src/core/contracts';
import { activateApi, alive, answerDialogs, setPatterns, terminalsNamed, testing, waitForTerminal, resultText, waitUntil } from './testApi';

const ALLOW_ALL: PolicyRule[] = [{ match: '*', approval: 'allow', allowRedirects: true }];

const text = resultText;

function names(): string {
  return vscode.window.terminals.map((t) => t.name).join(' | ');
}

describe('caller terminals: one terminal per caller session', () => {
  before(async () => {
    await setPatterns(ALLOW_ALL);
    await answerDialogs(undefined);
  });
  after(async () => setPatterns(undefined));

  it('ten commands from one caller share one terminal, each read back exactly', async () => {
    const api = await activateApi();
    for (let i = 0; i < 10; i++) {
      const result = await api.runBash({ command: `printf 'ten-%s\\n' ${i}; printf 'é-%s\\n' ${i}` }, { callerName: 'Ten' });
      assert.match(text(result), new RegExp(`^ten-${i}\\né-${i}\\n\\nWall time: [\\d.]+ seconds$`));
      assert.equal(result.isError, undefined);
    }
    assert.equal(terminalsNamed('AB: Ten').length, 1, names());
  });

  it('two callers get two terminals, named for each', async () => {
    const api = await activateApi();
    const [a, b] = await Promise.all([
      api.runBash({ command: 'echo from-alpha' }, { callerName: 'Alpha' }),
      api.runBash({ command: 'echo from-beta' }, { callerName: 'Beta' }),
    ]);
    assert.match(text(a), /^from-alpha\n\nWall time/);
    assert.match(text(b), /^from-beta\n\nWall time/);
    assert.equal(terminalsNamed('AB: Alpha').length, 1, names());
    assert.equal(terminalsNamed('AB: Beta').length, 1, names());
  });

  it('a second command started while the first runs gets a terminal of its own; later ones go back to the first', async () => {
    const api = await activateApi();
    const first = await api.createTerminal({ command: 'echo one; sleep 30' }, { callerName: 'Pair' });
    const second = await api.createTerminal({ command: 'echo two' }, { callerName: 'Pair' });
    assert.notEqual(first.terminalId, second.terminalId);
    assert.deepEqual(await second.waitForExit(), { exitCode: 0, signal: null });
    assert.equal((await second.currentOutput()).output, 'two\n');
    await waitForTerminal('AB: Pair');
    await waitForTerminal('AB: Pair (2)');
    const t = await testing();
    const firstView = t.services.bridge.list().find((c) => c.terminalId === first.terminalId)?.terminal;
    await second.release();
    // The first command may still be starting (a sandboxed start takes a moment): kill it once it printed.
    let firstOut = '';
    const poll = setInterval(() => void first.currentOutput().then((o) => (firstOut = o.output)), 25);
    try {
      await waitUntil(() => firstOut === 'one\n', 15_000, 'the first command to print');
    } finally {
      clearInterval(poll);
    }
    await first.kill();
    assert.deepEqual(await first.waitForExit(), { exitCode: null, signal: 'SIGTERM' });
    assert.deepEqual(await first.currentOutput(), { output: 'one\n', truncated: false, exitStatus: { exitCode: null, signal: 'SIGTERM' } });
    const third = await api.createTerminal({ command: 'echo three' }, { callerName: 'Pair' });
    const thirdView = t.services.bridge.list().find((c) => c.terminalId === third.terminalId)?.terminal;
    assert.ok(firstView);
    assert.equal(thirdView, firstView, 'the next command goes to the first free terminal');
    assert.equal((await third.waitForExit()).exitCode, 0);
    assert.equal((await third.currentOutput()).output, 'three\n');
    await Promise.all([first.release(), third.release()]);
    assert.equal(terminalsNamed('AB: Pair').length, 1, names());
  });

  it('Ctrl+C in the shared terminal stops the running command only; the terminal runs the next one', async () => {
    const api = await activateApi();
    const t = await testing();
    const warm = await api.runBash({ command: 'echo warm' }, { callerName: 'Ctrl' });
    assert.match(text(warm), /^warm\n/);
    const running = await api.createTerminal({ command: 'echo started; sleep 30' }, { callerName: 'Ctrl' });
    const handle = t.services.bridge.list().find((c) => c.terminalId === running.terminalId);
    assert.ok(handle?.pid);
    await waitUntil(() => handle.running && alive(handle.pid as number), 3000, 'the command to start');
    handle.terminal.sendText('\x03', false);
    assert.deepEqual(await running.waitForExit(), { exitCode: null, signal: 'SIGTERM' });
    assert.equal(alive(handle.pid), false);
    await running.release();
    const next = await api.runBash({ command: 'echo after-ctrl-c' }, { callerName: 'Ctrl' });
    assert.match(text(next), /^after-ctrl-c\n\nWall time/);
    assert.equal(terminalsNamed('AB: Ctrl').length, 1, names());
  });

  it('closing the shared terminal kills what runs in it and forgets its handle; the next command opens a new one', async () => {
    const api = await activateApi();
    const t = await testing();
    const running = await api.createTerminal({ command: 'sleep 33' }, { callerName: 'Closer' });
    const handle = t.services.bridge.list().find((c) => c.terminalId === running.terminalId);
    assert.ok(handle?.pid);
    const exit = running.waitForExit();
    handle.terminal.dispose();
    assert.deepEqual(await exit, { exitCode: null, signal: 'SIGTERM' });
    assert.equal(alive(handle.pid), false);
    await waitUntil(() => t.services.bridge.list().every((c) => c.terminalId !== running.terminalId), 3000, 'the handle to be released');
    assert.throws(() => t.services.bridge.get(running.terminalId), { message: `Unknown terminal id: ${running.terminalId}` });
    await waitUntil(() => terminalsNamed('AB: Closer').length === 0, 10000, 'the terminal to close');
    const next = await api.runBash({ command: 'echo reopened' }, { callerName: 'Closer' });
    assert.match(text(next), /^reopened\n/);
    assert.equal(terminalsNamed('AB: Closer').length, 1, names());
  });

  it('names the palette, the LM tool and bang terminals for their callers', async () => {
    await activateApi();
    const opened: string[] = [];
    const sub = vscode.window.onDidOpenTerminal((t) => opened.push(t.name));
    await vscode.commands.executeCommand('agentBash.run', 'echo palette-1');
    await vscode.commands.executeCommand('agentBash.run', 'echo palette-2');
    await vscode.lm.invokeTool('agent_bash', { input: { command: 'echo lm-1' }, toolInvocationToken: undefined });
    await vscode.lm.invokeTool('agent_bash', { input: { command: 'echo lm-2' }, toolInvocationToken: undefined });
    await vscode.commands.executeCommand('agentBash.runBang', 'echo bang-1');
    await vscode.commands.executeCommand('agentBash.runBang', 'echo bang-2');
    await waitForTerminal('AB: You');
    sub.dispose();
    // Earlier suites ran unnamed commands concurrently ("Agent Bash (2)"…): the palette reuses a free one.
    const unnamed = opened.filter((n) => /^Agent Bash( \(\d+\))?$/.test(n));
    assert.ok(unnamed.length <= 1, `opened: ${opened.join(' | ')}`);
    assert.ok(vscode.window.terminals.some((t) => /^Agent Bash( \(\d+\))?$/.test(t.name)), names());
    assert.equal(terminalsNamed('AB: Copilot').length, 1, names());
    assert.equal(terminalsNamed('AB: You').length, 1, names());
  });

  it('a new session of a caller whose terminal is still open (a reconnect) gets a numbered name, not the same one', async () => {
    const t = await testing();
    const pool = t.services.bridge.callerTerminals;
    const first = pool.acquire({ kind: 'acp', name: 'Again', sessionId: 'again-1' });
    const second = pool.acquire({ kind: 'acp', name: 'Again', sessionId: 'again-2' });
    try {
      assert.equal(first.baseName, 'AB: Again');
      assert.equal(second.baseName, 'AB: Again (2)');
      await waitForTerminal('AB: Again (2)');
      assert.equal(terminalsNamed('AB: Again').length, 1, names());
    } finally {
      pool.release(first);
      pool.release(second);
      first.dispose();
      second.dispose();
    }
  });
});
