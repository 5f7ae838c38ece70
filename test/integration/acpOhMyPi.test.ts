// The real oh-my-pi agent (`omp acp`, npm @oh-my-pi/pi-coding-agent 18.2.3 on bun) against the extension,
// offline: its model is a loopback fake that answers with one bash tool call. Opt-in, because the agent
// is not a dependency of this repo: set AGENT_BASH_OMP_DIR to a node_modules folder that holds
// @oh-my-pi/pi-coding-agent and @oven/bun-linux-x64 (installed outside the repo).
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { CONNECT_ACP_COMMAND, type AcpAgentHandle } from '../../src/vscode/acp/acpCommands';
import type { AgentBashServices } from '../../src/vscode/services';
import { startFakeOpenAi, type FakeOpenAi } from '../fixtures/fakeOpenAi';
import { activateApi, setPatterns, workspaceDir } from './testApi';

const OMP_DIR = process.env.AGENT_BASH_OMP_DIR ?? '';

describe('acp oh-my-pi (real agent, opt-in)', function () {
  this.timeout(120_000);
  // Unset when `before` skips (no oh-my-pi installed); `after` runs anyway.
  let services: AgentBashServices | undefined;
  let fake: FakeOpenAi | undefined;
  let handle: AcpAgentHandle | undefined;
  let toolArgs: Record<string, unknown> = {};

  before(async function () {
    const bun = path.join(OMP_DIR, '@oven', 'bun-linux-x64', 'bin', 'bun');
    const cli = path.join(OMP_DIR, '@oh-my-pi', 'pi-coding-agent', 'dist', 'cli.js');
    if (!OMP_DIR || !existsSync(bun) || !existsSync(cli)) return this.skip();
    const api = await activateApi();
    assert.ok(api.testing);
    services = api.testing.services;
    // The timeout test checks that the released terminal closes: keep none on screen for reading back.
    await vscode.workspace.getConfiguration('agentBash').update('terminal.keep', 0, vscode.ConfigurationTarget.Workspace);
    fake = await startFakeOpenAi(() => toolArgs);
    const home = mkdtempSync(path.join(os.tmpdir(), 'omp-home-'));
    mkdirSync(path.join(home, '.omp', 'agent'), { recursive: true });
    writeFileSync(
      path.join(home, '.omp', 'agent', 'models.yml'),
      [
        'providers:',
        '  fake:',
        `    baseUrl: ${fake.baseUrl}`,
        '    apiKey: fake-key',
        '    api: openai-completions',
        '    models:',
        '      - id: fake-1',
        '        name: Fake One',
        '',
      ].join('\n'),
    );
    handle = await vscode.commands.executeCommand<AcpAgentHandle>(CONNECT_ACP_COMMAND, {
      name: 'omp',
      command: bun,
      args: [cli, 'acp', '--model', 'fake/fake-1'],
      env: { HOME: home },
    });
  });

  after(async () => {
    services?.prompter.setResponder(undefined);
    await handle?.connection.disconnect('test finished');
    await fake?.close();
    if (services) await setPatterns(undefined);
    if (services) await vscode.workspace.getConfiguration('agentBash').update('terminal.keep', undefined, vscode.ConfigurationTarget.Workspace);
  });

  async function turn(command: string, extra: Record<string, unknown> = {}) {
    assert.ok(handle);
    toolArgs = { command, ...extra };
    const updates: SessionNotification[] = [];
    const off = handle.connection.onUpdate((n) => updates.push(n));
    try {
      const result = await handle.connection.prompt('run the command');
      return { result, updates };
    } finally {
      off();
    }
  }

  it('runs its bash tool through terminal/create in a VS Code terminal and reads the exit code', async () => {
    assert.ok(handle && services);
    await setPatterns([{ match: '*', approval: 'allow' }]);
    services.prompter.setResponder((q) => q.buttons.find((b) => /allow/i.test(b)));
    const opened: string[] = [];
    const sub = vscode.window.onDidOpenTerminal((t) => opened.push(t.name));
    const { result, updates } = await turn("printf 'omp-was-here\\n'; exit 3");
    assert.equal(result.stopReason, 'end_turn');
    // onDidOpenTerminal reaches the extension host asynchronously; a fast turn can end first.
    const name = 'AB: omp';
    for (let i = 0; i < 100 && !opened.includes(name); i++) await new Promise((r) => setTimeout(r, 50));
    sub.dispose();
    assert.ok(opened.includes(name), `terminals: ${opened.join(' | ')}`);
    const embedded = updates.some(
      (n) => n.update.sessionUpdate === 'tool_call_update' && n.update.content?.some((c) => c.type === 'terminal'),
    );
    assert.ok(embedded, 'oh-my-pi should embed the terminal in its tool call');
    assert.match(result.text, /omp-was-here/);
    assert.match(result.text, /code 3/);
    const panel = handle.panel;
    assert.ok(panel);
    const card = [...panel.cards.values()].find((c) => c.commandLine === "printf 'omp-was-here\\n'; exit 3");
    // omp wraps the line in a login shell (`bash -l -c`), so the user's profile may print first.
    assert.match(card?.output ?? '', /(^|\n)omp-was-here\n$/);
    assert.equal(card?.exit, '[exit code 3]');
  });

  it('gets the deny rule as the error of its bash tool and runs nothing', async () => {
    const marker = path.join(workspaceDir(), 'omp-denied.txt');
    await setPatterns([{ match: 'touch *', approval: 'deny' }]);
    const { result } = await turn(`touch ${marker}`);
    assert.equal(result.stopReason, 'end_turn');
    assert.match(result.text, /Command denied: .*rule `touch \*`/);
    assert.equal(existsSync(marker), false);
  });

  it('times out a long command with terminal/kill and leaves no process behind', async () => {
    await setPatterns([{ match: '*', approval: 'allow' }]);
    const opened: vscode.Terminal[] = [];
    const sub = vscode.window.onDidOpenTerminal((t) => opened.push(t));
    const { result } = await turn('sleep 30', { timeout: 2 });
    sub.dispose();
    assert.match(result.text, /\[Command timed out after 2 seconds\]/);
    assert.deepEqual(handle?.connection.terminals.liveIds, [], 'omp released its terminal after the kill');
    assert.equal(opened.length, 1);
    const deadline = Date.now() + 5000;
    while (vscode.window.terminals.includes(opened[0] as vscode.Terminal)) {
      if (Date.now() > deadline) throw new Error('the timed-out terminal was not closed');
      await new Promise((r) => setTimeout(r, 25));
    }
  });
});
