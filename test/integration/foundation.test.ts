import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateApi, answerDialogs, EXTENSION_ID, terminalsNamed } from './testApi';

describe('foundation', () => {
  it('activates the extension', async () => {
    await activateApi();
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
  });

  it('registers agentBash.run', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('agentBash.run'), 'agentBash.run missing from the command list');
  });

  it('runs printf and exit 3 in a Pseudoterminal terminal and sees output and exit code', async () => {
    const api = await activateApi();
    await answerDialogs('Allow once');
    const term = await api.createTerminal({ command: "printf 'a\\nb\\n'; exit 3" }, { callerName: 'Foundation' });
    const status = await term.waitForExit();
    assert.deepEqual(status, { exitCode: 3, signal: null });
    const out = await term.currentOutput();
    assert.equal(out.output, 'a\nb\n');
    assert.equal(out.truncated, false);
    assert.equal(terminalsNamed('AB: Foundation').length, 1, `no terminal named for the caller among: ${vscode.window.terminals.map((t) => t.name).join(', ')}`);
    await term.release();
  });

  it('loads node-pty in the extension host: echo hi; exit 2', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pty = require('@lydell/node-pty') as typeof import('@lydell/node-pty');
    const proc = pty.spawn('/bin/bash', ['-c', 'echo hi; exit 2'], { cols: 80, rows: 24, cwd: process.cwd(), env: process.env });
    let output = '';
    proc.onData((d) => (output += d));
    const exit = await new Promise<{ exitCode: number; signal?: number }>((resolve) => proc.onExit(resolve));
    assert.equal(exit.exitCode, 2);
    assert.match(output, /hi\r\n/);
  });

  it('Run Agent Bash returns the result of the command it ran', async () => {
    await answerDialogs('Allow once');
    const result = await vscode.commands.executeCommand<{ details: { exitCode?: number }; isError?: boolean }>('agentBash.run', 'exit 4');
    assert.equal(result.details.exitCode, 4);
    assert.equal(result.isError, true);
  });
});
