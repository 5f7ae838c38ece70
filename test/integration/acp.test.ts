// The ACP client inside the real VS Code: a scripted agent built on the SDK's agent side runs as a child
// process over stdio (test/fixtures/acpTestAgent.ts) and drives terminal/*, session/request_permission
// and fs/* against the extension. Every dialog is answered through the prompter seam.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { PolicyRule } from '../../src/core/contracts';
import { permissionTitle } from '../../src/acp/permissionHost';
import { COMMAND_DENIED_CODE, UNKNOWN_TERMINAL_CODE, unknownTerminalMessage } from '../../src/acp/terminalHost';
import { commandDeniedMessage, userDeniedMessage } from '../../src/core/policy/policyGate';
import { ALLOW_ONCE, DENY, isApprovalQuestion } from '../../src/vscode/approvals/approvalDialog';
import { invalidAgentConfigMessage } from '../../src/acp/agentConfig';
import { CONNECT_ACP_COMMAND, unknownAgentMessage, type AcpAgentHandle } from '../../src/vscode/acp/acpCommands';
import type { PromptResponder } from '../../src/vscode/approvals/modalPrompter';
import type { AgentBashServices } from '../../src/vscode/services';
import { probeSandbox } from '../../src/exec/sandbox/sandboxProbe';
import { activateApi, alive, processesWithCommandLine, setPatterns, workspaceDir } from './testApi';
import { decisionLabel, sandboxMark, type HistoryEntry } from '../../src/core/history';

const AGENT_SCRIPT = path.join(__dirname, '..', 'fixtures', 'acpTestAgent.js');
const AGENT_NAME = 'test-agent';
const ALLOW_ALL: PolicyRule[] = [{ match: '*', approval: 'allow' }];

// Report shapes of the fixture (JSON over the agent's message text).
interface CallError {
  code: number;
  message: string;
}
type Attempt<T> = { ok: T } | { error: CallError };
interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
}
interface OutputSnapshot {
  output: string;
  truncated: boolean;
  exitStatus?: ExitStatus | null;
}
interface RunToExit {
  terminalId: string;
  pollSawExit: ExitStatus | null;
  wait: ExitStatus;
  final: OutputSnapshot;
  afterRelease: Attempt<unknown>;
  releaseAgain: Attempt<unknown>;
}
type PermissionOutcome = { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function errorOf<T>(a: Attempt<T>): CallError {
  assert.ok('error' in a, `expected an error, got ${JSON.stringify(a)}`);
  return a.error;
}

function okOf<T>(a: Attempt<T>): T {
  assert.ok('ok' in a, `expected success, got ${JSON.stringify(a)}`);
  return a.ok;
}

describe('acp client', function () {
  this.timeout(60_000);
  let services: AgentBashServices;
  const handles: AcpAgentHandle[] = [];
  const opened: vscode.Terminal[] = [];
  let openListener: vscode.Disposable | undefined;

  async function connect(panel = true): Promise<AcpAgentHandle> {
    const handle = await vscode.commands.executeCommand<AcpAgentHandle>(
      CONNECT_ACP_COMMAND,
      { name: AGENT_NAME, command: process.execPath, args: [AGENT_SCRIPT] },
      { panel },
    );
    handles.push(handle);
    return handle;
  }

  async function play<T>(handle: AcpAgentHandle, script: Record<string, unknown>): Promise<T> {
    const result = await handle.connection.prompt(JSON.stringify(script));
    return okOf(JSON.parse(result.text) as Attempt<T>);
  }

  function respond(responder: PromptResponder): void {
    services.prompter.setResponder(responder);
  }

  before(async () => {
    const api = await activateApi();
    assert.ok(api.testing, 'AGENT_BASH_TEST_MODE=1 should expose the services');
    services = api.testing.services;
    // These tests check that a release closes the terminal: keep none on screen for reading back.
    await vscode.workspace.getConfiguration('agentBash').update('terminal.keep', 0, vscode.ConfigurationTarget.Workspace);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('agentBash').update('terminal.keep', undefined, vscode.ConfigurationTarget.Workspace);
  });

  beforeEach(() => {
    opened.length = 0;
    openListener = vscode.window.onDidOpenTerminal((t) => opened.push(t));
  });

  afterEach(async () => {
    openListener?.dispose();
    for (const h of handles) h.panel?.dispose();
    await Promise.all(handles.splice(0).map((h) => h.connection.disconnect('test finished')));
    services.prompter.setResponder(undefined);
    await setPatterns(undefined);
  });

  it('initializes with terminal: true and boolean fs capabilities, and opens the session in the workspace', async () => {
    const handle = await connect(false);
    const report = await play<{ clientCapabilities: { fs?: unknown; terminal?: unknown }; sessionCwd: string }>(handle, {
      scenario: 'caps',
    });
    assert.strictEqual(report.clientCapabilities.terminal, true);
    assert.deepEqual(report.clientCapabilities.fs, { readTextFile: true, writeTextFile: true });
    assert.equal(report.sessionCwd, workspaceDir());
    assert.equal(handle.connection.agentInfo?.name, 'acp-test-agent');
    assert.equal(handle.connection.sessionId, 'test-session-1');
  });

  it('connects an agent named in agentBash.acp.agents, and refuses an unknown name', async () => {
    const config = vscode.workspace.getConfiguration('agentBash');
    await config.update('acp.agents', [{ name: 'from-settings', command: process.execPath, args: [AGENT_SCRIPT] }], vscode.ConfigurationTarget.Workspace);
    try {
      const handle = await vscode.commands.executeCommand<AcpAgentHandle>(CONNECT_ACP_COMMAND, 'from-settings', { panel: false });
      handles.push(handle);
      assert.equal(handle.connection.name, 'from-settings');
      assert.equal(handle.connection.isConnected, true);
      await assert.rejects(
        Promise.resolve(vscode.commands.executeCommand(CONNECT_ACP_COMMAND, 'nobody')),
        (err: Error) => err.message === unknownAgentMessage('nobody'),
      );
      await assert.rejects(
        Promise.resolve(vscode.commands.executeCommand(CONNECT_ACP_COMMAND, { name: 'x' })),
        (err: Error) => err.message === invalidAgentConfigMessage('command: Invalid input: expected string, received undefined'),
      );
    } finally {
      await config.update('acp.agents', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('closing the panel disconnects the agent and ends its process', async () => {
    const handle = await connect();
    const pid = handle.connection.pid as number;
    assert.equal(alive(pid), true);
    handle.panel?.dispose();
    await until('the agent to disconnect', () => !handle.connection.isConnected);
    await until('the agent process to end', () => !alive(pid));
    assert.equal(handle.connection.closedReason, 'the panel was closed');
  });

  it('runs both command shapes in VS Code terminals: exact output, exit codes, tail limit, env, release', async () => {
    await setPatterns(ALLOW_ALL);
    respond(() => undefined);
    const handle = await connect();
    const ws = workspaceDir();
    const r = await play<{ argv: RunToExit; raw: RunToExit; tail: RunToExit; env: RunToExit; unknown: Attempt<unknown> }>(handle, {
      scenario: 'shapes',
      cwd: ws,
    });

    // oh-my-pi's shape: shell + args + cwd.
    assert.deepEqual(r.argv.wait, { exitCode: 3, signal: null });
    assert.deepEqual(r.argv.pollSawExit, { exitCode: 3, signal: null });
    assert.deepEqual(r.argv.final, { output: `argv-shape\n${ws}\n`, truncated: false, exitStatus: { exitCode: 3, signal: null } });
    // claude-code-acp's shape: a raw line, no args, no cwd (runs through the shell in the workspace).
    assert.deepEqual(r.raw.wait, { exitCode: 5, signal: null });
    assert.equal(r.raw.final.output, `raw-42\n${ws}\n`);
    // outputByteLimit keeps the tail.
    assert.deepEqual(r.tail.final, { output: 'ghij', truncated: true, exitStatus: { exitCode: 0, signal: null } });
    assert.equal(r.env.final.output, 'from-env');
    // Issue 34: an ACP row names the rule's layer, as a pipeline row does.
    const history = (await activateApi()).testing?.history;
    assert.ok(history, 'testing.history');
    const byRule = history.entries.filter((e: HistoryEntry) => e.caller.kind === 'acp' && e.decision.rule === '*');
    assert.ok(byRule.length > 0, 'ACP rows allowed by the rule');
    assert.deepEqual([...new Set(byRule.map((e) => decisionLabel(e.decision)))], ['allowed by rule `*` from workspace settings']);

    for (const run of [r.argv, r.raw]) {
      assert.deepEqual(errorOf(run.afterRelease), { code: UNKNOWN_TERMINAL_CODE, message: unknownTerminalMessage(run.terminalId), data: { terminalId: run.terminalId } });
      assert.deepEqual(okOf(run.releaseAgain), {});
    }
    assert.equal(errorOf(r.unknown).message, unknownTerminalMessage('no-such-terminal'));
    assert.deepEqual(services.prompter.asked, [], 'an allow rule must not ask');

    // onDidOpenTerminal reaches the extension host asynchronously: wait for both names.
    // Every command is drawn in the agent's own terminal; with terminal.keep 0 it closes at each release.
    await until('the agent terminal to open', () => opened.length > 0);
    assert.deepEqual([...new Set(opened.map((t) => t.name))], [`AB: ${AGENT_NAME}`]);
    await until('released terminals to close', () => opened.every((t) => !vscode.window.terminals.includes(t)));
    assert.deepEqual(handle.connection.terminals.liveIds, []);

    // The panel kept each card after release, with the live output and the exit line.
    const panel = handle.panel;
    assert.ok(panel);
    await until('the panel cards to fill', () => panel.cards.get(r.argv.terminalId)?.exit !== undefined);
    assert.deepEqual(panel.cards.get(r.argv.terminalId), {
      terminalId: r.argv.terminalId,
      commandLine: "printf 'argv-shape\\n'; pwd; exit 3",
      output: `argv-shape\n${ws}\n`,
      exit: '[exit code 3]',
    });
    const tool = panel.transcript.tool('tc-argv');
    assert.equal(tool?.status, 'failed');
    assert.deepEqual(tool.terminalIds, [r.argv.terminalId]);
    assert.equal(panel.transcript.tool('tc-env')?.status, 'completed');
  });

  it('kills a running command with terminal/kill and keeps the terminal readable until release', async () => {
    await setPatterns(ALLOW_ALL);
    const handle = await connect(false);
    const r = await play<{ before: OutputSnapshot; wait: ExitStatus; after: OutputSnapshot; killMs: number }>(handle, {
      scenario: 'kill',
    });
    assert.deepEqual(r.before, { output: 'started\n', truncated: false, exitStatus: null });
    assert.deepEqual(r.wait, { exitCode: null, signal: 'SIGTERM' });
    assert.deepEqual(r.after, { output: 'started\n', truncated: false, exitStatus: { exitCode: null, signal: 'SIGTERM' } });
    assert.ok(r.killMs < 3000, `kill took ${r.killMs} ms`);
  });

  it('answers a pending terminal/wait_for_exit cancelled by $/cancel_request with -32800 and leaves the command running', async () => {
    await setPatterns(ALLOW_ALL);
    const handle = await connect(false);
    const r = await play<{ waited: Attempt<unknown>; elapsedMs: number; exitStatusAfterCancel: unknown }>(handle, {
      scenario: 'cancelWait',
    });
    const err = errorOf(r.waited);
    assert.equal(err.code, -32800);
    assert.ok(r.elapsedMs >= 250 && r.elapsedMs < 5000, `wait ended after ${r.elapsedMs} ms`);
    assert.equal(r.exitStatusAfterCancel, null);
  });

  it('answers terminal/create with an error naming the deny rule, runs nothing and opens no terminal', async () => {
    await setPatterns([{ match: 'touch *', approval: 'deny' }]);
    respond(() => ALLOW_ONCE);
    const handle = await connect(false);
    const ws = workspaceDir();
    const marker = path.join(ws, 'denied-marker.txt');
    for (const shape of [
      { command: '/bin/bash', args: ['-c', `touch ${marker}`], cwd: ws },
      { command: `touch ${marker}` },
    ]) {
      const r = await play<{ created: boolean; error: CallError & { data: unknown } }>(handle, { scenario: 'run', ...shape });
      const decision = services.pipeline.explain(`touch ${marker}`, ws);
      assert.equal(decision.decision, 'deny');
      assert.equal(r.created, false);
      assert.equal(r.error.code, COMMAND_DENIED_CODE);
      assert.equal(r.error.message, commandDeniedMessage(decision.reason));
      assert.match(r.error.message, /rule `touch \*`/);
      assert.deepEqual(r.error.data, { decision: 'deny', rule: 'touch *', reason: decision.reason });
    }
    assert.equal(existsSync(marker), false, 'a denied command must leave no side effect');
    assert.deepEqual(services.prompter.asked, [], 'a deny must not ask');
    assert.deepEqual(opened, []);
  });

  it('asks before a prompt-level command: Deny runs nothing, Allow once runs it', async () => {
    await setPatterns([{ match: 'touch *', approval: 'prompt' }]);
    const handle = await connect(false);
    const ws = workspaceDir();
    const marker = path.join(ws, 'prompted-marker.txt');
    const line = `touch ${marker}`;
    const reason = services.pipeline.explain(line, ws).reason;

    respond((q) => (isApprovalQuestion(q) ? DENY : undefined));
    const denied = await play<{ created: boolean; error: CallError }>(handle, { scenario: 'run', command: '/bin/bash', args: ['-l', '-c', line], cwd: ws });
    assert.equal(denied.created, false);
    assert.equal(denied.error.code, COMMAND_DENIED_CODE);
    assert.equal(denied.error.message, userDeniedMessage(reason));
    assert.equal(services.prompter.asked.length, 1);
    assert.match(services.prompter.asked[0]?.detail ?? '', new RegExp(`Command: ${line.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.equal(existsSync(marker), false, 'a command the user denied must leave no side effect');
    assert.deepEqual(opened, []);

    respond((q) => (isApprovalQuestion(q) ? ALLOW_ONCE : undefined));
    const allowed = await play<{ created: boolean; wait: ExitStatus }>(handle, { scenario: 'run', command: line });
    assert.equal(allowed.created, true);
    assert.deepEqual(allowed.wait, { exitCode: 0, signal: null });
    assert.equal(existsSync(marker), true);
    assert.equal(services.prompter.asked.length, 1);
  });

  it('maps session/request_permission options to dialog buttons and answers the chosen option', async () => {
    const handle = await connect(false);
    respond(() => 'Allow');
    const r = await play<{ outcomes: PermissionOutcome[] }>(handle, { scenario: 'permission', title: 'touch perm.txt' });
    assert.deepEqual(r.outcomes, [{ outcome: 'selected', optionId: 'opt-allow-once' }]);
    assert.deepEqual(services.prompter.asked, [
      {
        message: permissionTitle(AGENT_NAME, 'touch perm.txt'),
        detail: 'Command: touch perm.txt',
        buttons: ['Allow', 'Always allow', 'Reject', 'Always reject'],
      },
    ]);

    respond(() => undefined);
    const dismissed = await play<{ outcomes: PermissionOutcome[] }>(handle, { scenario: 'permission' });
    assert.deepEqual(dismissed.outcomes, [{ outcome: 'cancelled' }]);
  });

  it('remembers "always" answers per agent', async () => {
    const first = await connect(false);
    respond(() => 'Always allow');
    const r = await play<{ outcomes: PermissionOutcome[] }>(first, { scenario: 'permission', title: 'npm test', count: 3 });
    assert.deepEqual(r.outcomes, Array(3).fill({ outcome: 'selected', optionId: 'opt-allow-always' }));
    assert.equal(services.prompter.asked.length, 1, 'asked once, then remembered');

    respond(() => 'Always reject');
    const rejected = await play<{ outcomes: PermissionOutcome[] }>(first, { scenario: 'permission', title: 'rm -rf out', count: 2 });
    assert.deepEqual(rejected.outcomes, Array(2).fill({ outcome: 'selected', optionId: 'opt-reject-always' }));
    assert.equal(services.prompter.asked.length, 1);

    // Another agent has its own memory.
    const second = await connect(false);
    respond(() => 'Reject');
    const other = await play<{ outcomes: PermissionOutcome[] }>(second, { scenario: 'permission', title: 'npm test' });
    assert.deepEqual(other.outcomes, [{ outcome: 'selected', optionId: 'opt-reject-once' }]);
    assert.equal(services.prompter.asked.length, 1);
  });

  it('answers a pending permission request with cancelled after Stop (session/cancel)', async () => {
    const handle = await connect();
    respond(() => new Promise<string | undefined>(() => undefined));
    const panel = handle.panel;
    assert.ok(panel);
    const turn = panel.sendPrompt(JSON.stringify({ scenario: 'permission' }));
    await until('the permission dialog', () => services.prompter.asked.length === 1);
    await panel.handleMessage({ type: 'stop' });
    await turn;
    // The status line says how the turn ended in a word, not ACP's stop reason.
    assert.equal(panel.statusText, 'Stopped');
    const agentText = panel.transcript.items.filter((i) => i.kind === 'agent').map((i) => i.text).join('');
    assert.deepEqual(JSON.parse(agentText), { ok: { outcomes: [{ outcome: 'cancelled' }], cancelled: true } });
    assert.deepEqual(panel.transcript.items[0], { kind: 'user', text: JSON.stringify({ scenario: 'permission' }) });
  });

  it('reads unsaved editor text and writes through documents and workspace.fs', async () => {
    const handle = await connect(false);
    const dir = mkdtempSync(path.join(workspaceDir(), 'fs-'));
    const file = path.join(dir, 'notes.txt');
    writeFileSync(file, 'on disk\n');
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.replace(new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), 'one\ntwo\nthree\n'));
    assert.equal(doc.isDirty, true);

    assert.deepEqual(await play(handle, { scenario: 'fsRead', path: file }), { ok: { content: 'one\ntwo\nthree\n' } });
    assert.deepEqual(await play(handle, { scenario: 'fsRead', path: file, line: 2, limit: 1 }), { ok: { content: 'two' } });

    assert.deepEqual(await play(handle, { scenario: 'fsWrite', path: file, content: 'agent wrote\n' }), { ok: {} });
    assert.equal(doc.getText(), 'agent wrote\n');
    assert.equal(doc.isDirty, false);
    assert.equal(readFileSync(file, 'utf8'), 'agent wrote\n');

    const fresh = path.join(dir, 'sub', 'new.txt');
    assert.deepEqual(await play(handle, { scenario: 'fsWrite', path: fresh, content: 'new file' }), { ok: {} });
    assert.equal(readFileSync(fresh, 'utf8'), 'new file');

    const missing = await play<Attempt<unknown>>(handle, { scenario: 'fsRead', path: path.join(dir, 'missing.txt') });
    assert.equal(errorOf(missing).code, -32002);
    const relative = await play<Attempt<unknown>>(handle, { scenario: 'fsRead', path: 'notes.txt' });
    assert.equal(errorOf(relative).code, -32602);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('reading or writing a file outside the workspace asks the user; a refusal touches nothing', async () => {
    const handle = await connect(false);
    const outside = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-outside-'));
    try {
      const target = path.join(outside, 'agent.txt');
      services.prompter.setResponder(() => 'Deny');
      const refused = await play<Attempt<unknown>>(handle, { scenario: 'fsWrite', path: target, content: 'x' });
      assert.deepEqual(errorOf(refused), {
        code: -32001,
        message: `Denied: writing ${target} (outside the workspace) was not approved by the user`,
        data: { path: target },
      });
      assert.equal(existsSync(target), false);
      assert.equal(services.prompter.asked[0]?.message, 'Agent Bash: let the agent write a file outside the workspace?');
      services.prompter.setResponder((q) => q.buttons[0]);
      assert.deepEqual(await play(handle, { scenario: 'fsWrite', path: target, content: 'allowed' }), { ok: {} });
      assert.equal(readFileSync(target, 'utf8'), 'allowed');
      assert.deepEqual(await play(handle, { scenario: 'fsRead', path: target }), { ok: { content: 'allowed' } });
      assert.deepEqual(services.prompter.asked.map((q) => q.buttons[0]), ['Allow write', 'Allow read']);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('terminal/create runs in the OS sandbox; _meta sandbox "off" asks first and runs outside', async function () {
    if (!probeSandbox().sandbox) this.skip();
    await setPatterns(ALLOW_ALL);
    const handle = await connect(false);
    const outside = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-acp-outside-'));
    try {
      const target = path.join(outside, 'from-acp');
      // Relative to the outside folder via cd, so the policy sees no absolute path outside.
      const line = `cd ${outside} && echo x > from-acp; echo "sandbox=$AGENT_BASH_SANDBOX"`;
      respond(() => ALLOW_ONCE);
      const inside = await play<{ created: boolean; output: string }>(handle, { scenario: 'run', command: '/bin/bash', args: ['-c', line] });
      assert.equal(existsSync(target), false);
      assert.match(inside.output, /from-acp: Read-only file system\nsandbox=1\n/);
      // Issue 34: its History row says what the sandbox refused, as a pipeline row does.
      const history = (await activateApi()).testing?.history;
      assert.ok(history, 'testing.history');
      const row = (): HistoryEntry | undefined => history.entries.find((e) => e.caller.kind === 'acp' && e.command.includes('from-acp'));
      await until('the sandboxed ACP row to end', () => row()?.end === 'exit');
      assert.equal(sandboxMark(row()!), 'sandbox refused writing from-acp');

      services.prompter.asked.length = 0;
      const off = await play<{ created: boolean; output: string }>(handle, {
        scenario: 'run',
        command: '/bin/bash',
        args: ['-c', line],
        meta: { agentBash: { sandbox: 'off' } },
      });
      assert.equal(off.output, 'sandbox=\n');
      assert.equal(readFileSync(target, 'utf8'), 'x\n');
      // …and its second run is marked as outside the sandbox.
      await until('the unsandboxed ACP row', () => history.entries[0]?.command.includes('from-acp') === true && history.entries[0]?.end === 'exit');
      assert.equal(sandboxMark(history.entries[0]!), 'outside the sandbox');
      assert.equal(services.prompter.asked.length, 1);
      assert.match(services.prompter.asked[0]?.detail ?? '', /runs outside the OS sandbox/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('reveals a terminal from its panel card', async () => {
    await setPatterns(ALLOW_ALL);
    const handle = await connect();
    const r = await play<{ terminalIds: string[] }>(handle, { scenario: 'leak' });
    const panel = handle.panel;
    assert.ok(panel);
    const target = services.bridge.list().find((t) => t.terminalId === r.terminalIds[1]);
    assert.ok(target);
    assert.equal(panel.reveal(r.terminalIds[1] as string), true);
    await until('the card terminal to become active', () => vscode.window.activeTerminal === target.terminal);
    assert.match(panel.html(), /default-src 'none'/);
    assert.match(panel.html(), new RegExp(`<script nonce="${panel.nonce.replace(/[+/=]/g, '\\$&')}" src="[^"]+/media/acpPanel\\.js"`));
    assert.doesNotMatch(panel.html(), /<script(?![^>]*nonce=)/);
  });

  for (const how of ['the client disconnects', 'the agent exits'] as const) {
    it(`kills and releases every terminal an agent left unreleased when ${how}`, async () => {
      await setPatterns(ALLOW_ALL);
      const handle = await connect(false);
      const r = await play<{ terminalIds: string[]; children: string[]; agentPid: number }>(handle, {
        scenario: 'leak',
        exitAfter: how === 'the agent exits',
      });
      assert.equal(r.agentPid, handle.connection.pid);
      const terminals = services.bridge.list().filter((t) => r.terminalIds.includes(t.terminalId));
      assert.equal(terminals.length, 2);
      // `echo started` can run before the backgrounded bash has exec'd sleep: wait for both argvs.
      await until('both background children to exec', () => r.children.every((c) => processesWithCommandLine(c).length === 1), 15_000);
      const pids = [...r.children.flatMap((c) => processesWithCommandLine(c)), ...terminals.map((t) => t.pid as number)];
      assert.equal(pids.length, 4, `pids: ${pids.join(',')}`);
      for (const pid of pids) assert.equal(alive(pid), true, `pid ${pid} should run before the disconnect`);

      if (how === 'the client disconnects') await handle.connection.disconnect();
      else await until('the agent exit to be noticed', () => !handle.connection.isConnected);

      await until('every process of the agent to die', () => [...pids, r.agentPid].every((p) => !alive(p)));
      await until('its terminals to close', () => terminals.every((t) => !vscode.window.terminals.includes(t.terminal)));
      assert.deepEqual(services.bridge.list().filter((t) => r.terminalIds.includes(t.terminalId)), []);
      assert.deepEqual(handle.connection.terminals.liveIds, []);
    });
  }
});
