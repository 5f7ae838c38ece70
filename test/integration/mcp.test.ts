// The MCP server inside a real VS Code: a real @modelcontextprotocol/sdk client over Streamable HTTP
// against the extension's server, so every call goes through the extension's pipeline, policy,
// approval dialogs and VS Code terminals.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { decisionLabel, endLabel, type HistoryEntry } from '../../src/core/history';
import { GATE_MESSAGES } from '../../src/mcp/httpGate';
import { withdrawnMessage } from '../../src/vscode/approvals/approvalDialog';
import { answerDialogs, processesWithCommandLine, setPatterns, testing, workspaceDir } from './testApi';

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

const textOf = (r: TextResult): string => r.content.map((c) => c.text).join('\n');

async function waitUntil(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function post(port: number, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(init);
  });
}

describe('mcp: server over HTTP inside VS Code', function () {
  this.timeout(120_000);
  let port: number;
  let token: string;
  const clients: Client[] = [];
  const dir = (): string => workspaceDir();

  async function connect(name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport, { timeout: 100_000 });
    clients.push(client);
    return { client, transport };
  }

  async function bash(client: Client, args: Record<string, unknown>, signal?: AbortSignal): Promise<TextResult> {
    return (await client.callTool({ name: 'bash', arguments: args }, undefined, signal ? { signal, timeout: 100_000 } : { timeout: 100_000 })) as TextResult;
  }

  before(async () => {
    const allow = ['printf *', 'exit *', 'echo *', 'sleep *', 'sh *', 'exec *'].map((match) => ({ match, approval: 'allow' as const, allowRedirects: true }));
    await setPatterns([...allow, { match: 'rm *', approval: 'deny' }]);
    await vscode.workspace.getConfiguration('agentBash').update('mcp.enabled', true, vscode.ConfigurationTarget.Workspace);
    const t = await testing();
    await waitUntil(() => t.mcp?.port !== undefined, 10_000, 'the MCP server to listen');
    port = t.mcp?.port as number;
    token = t.mcp?.currentToken as string;
  });

  afterEach(async () => answerDialogs(undefined));

  after(async () => {
    await Promise.allSettled(clients.splice(0).map((c) => c.close()));
    await vscode.workspace.getConfiguration('agentBash').update('mcp.enabled', undefined, vscode.ConfigurationTarget.Workspace);
    const t = await testing();
    await waitUntil(() => t.mcp?.port === undefined, 10_000, 'the MCP server to stop');
    await setPatterns(undefined);
  });

  it('answers 401 without the token and 403 for a foreign Origin', async () => {
    const noToken = await post(port, {});
    assert.equal(noToken.status, 401);
    assert.equal(JSON.parse(noToken.body).error.message, GATE_MESSAGES.noToken);
    const wrong = await post(port, { authorization: 'Bearer wrong' });
    assert.equal(wrong.status, 401);
    const foreign = await post(port, { authorization: `Bearer ${token}`, origin: 'http://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal(JSON.parse(foreign.body).error.message, GATE_MESSAGES.badOrigin('http://evil.example'));
  });

  it('Rotate MCP Token: the old token gets 401, the new one works', async () => {
    const t = await testing();
    const old = token;
    await vscode.commands.executeCommand('agentBash.rotateMcpToken');
    token = t.mcp?.currentToken as string;
    assert.notEqual(token, old);
    assert.equal((await post(port, { authorization: `Bearer ${old}` })).status, 401);
    assert.equal((await post(port, { authorization: `Bearer ${token}` })).status, 200);
  });

  it("bash runs printf 'a\\nb\\n'; exit 3 in a VS Code terminal and returns the output and exit status", async () => {
    const { client } = await connect('mcp-it-client');
    const opened: string[] = [];
    const sub = vscode.window.onDidOpenTerminal((t) => opened.push(t.name));
    try {
      const r = await bash(client, { command: "printf 'a\\nb\\n'; exit 3" });
      assert.equal(r.isError, true);
      assert.match(textOf(r), /^a\nb\n\nWall time: [\d.]+ seconds\n\nCommand exited with code 3$/);
      // Terminal events reach the extension host asynchronously.
      await waitUntil(() => opened.length >= 1, 10_000, 'a VS Code terminal for the command');
    } finally {
      sub.dispose();
    }
  });

  it('a denied command returns the error and runs nothing', async () => {
    const { client } = await connect('mcp-it-client');
    const canary = path.join(dir(), 'mcp-canary.txt');
    writeFileSync(canary, 'alive');
    try {
      await answerDialogs('Allow once');
      const r = await bash(client, { command: `rm -f ${canary}` });
      assert.equal(r.isError, true);
      assert.equal(textOf(r), `Command denied: \`rm -f ${canary}\` in segment 1 matched deny rule \`rm *\``);
      assert.equal(readFileSync(canary, 'utf8'), 'alive');
      assert.equal((await testing()).services.prompter.asked.length, 0);
    } finally {
      rmSync(canary, { force: true });
    }
  });

  it('port 0 is chosen once and kept when the server starts again; when another program took it, it moves', async () => {
    const config = vscode.workspace.getConfiguration('agentBash');
    const t = await testing();
    const restart = async (): Promise<number> => {
      await config.update('mcp.enabled', false, vscode.ConfigurationTarget.Workspace);
      await waitUntil(() => t.mcp?.port === undefined, 10_000, 'the MCP server to stop');
      await config.update('mcp.enabled', true, vscode.ConfigurationTarget.Workspace);
      await waitUntil(() => t.mcp?.port !== undefined, 10_000, 'the MCP server to listen again');
      return t.mcp?.port as number;
    };
    const first = port;
    assert.equal(await restart(), first);
    // A client configured before the restart still works. It is closed before the port is taken:
    // its event stream would reconnect to whatever listens there.
    const { client } = await connect('mcp-it-after-restart');
    assert.equal((await bash(client, { command: 'echo still-here' })).isError, false);
    await client.close();
    clients.splice(clients.indexOf(client), 1);

    await config.update('mcp.enabled', false, vscode.ConfigurationTarget.Workspace);
    await waitUntil(() => t.mcp?.port === undefined, 10_000, 'the MCP server to stop');
    const blocker = http.createServer();
    await new Promise<void>((resolve) => blocker.listen(first, '127.0.0.1', resolve));
    try {
      await config.update('mcp.enabled', true, vscode.ConfigurationTarget.Workspace);
      await waitUntil(() => t.mcp?.port !== undefined, 10_000, 'the MCP server to listen on another port');
      port = t.mcp?.port as number;
      assert.notEqual(port, first);
    } finally {
      blocker.closeAllConnections();
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
    // The new port is the one kept from now on.
    assert.equal(await restart(), port);
  });

  it("a 70 s silent command and a 70 s pending approval, side by side, outlive the SDK's default 60 s request timeout: keep-alive progress resets it", async function () {
    this.timeout(180_000);
    assert.equal(DEFAULT_REQUEST_TIMEOUT_MSEC, 60_000);
    const silent = await connect('mcp-it-silent');
    const waiting = await connect('mcp-it-waiting');
    const marker = path.join(dir(), 'mcp-waited.txt');
    rmSync(marker, { force: true });
    const t = await testing();
    let silentProgress = 0;
    let waitingProgress = 0;
    const started = Date.now();
    // The person answers only after 70 s: past the client's default 60 s timeout, which only the
    // progress it received kept from firing (the SDK's resetTimeoutOnProgress; no `timeout` given).
    t.services.prompter.setResponder(async () => {
      await waitUntil(() => Date.now() - started >= 70_000 && waitingProgress >= 6, 150_000, '70 s and six keep-alive notifications');
      return 'Allow once';
    });
    try {
      const [quiet, approved] = await Promise.all([
        silent.client.callTool({ name: 'bash', arguments: { command: 'sleep 70; echo woke', timeout: 150 } }, undefined, {
          resetTimeoutOnProgress: true,
          onprogress: () => (silentProgress += 1),
        }) as Promise<TextResult>,
        waiting.client.callTool({ name: 'bash', arguments: { command: `touch ${marker}` } }, undefined, {
          resetTimeoutOnProgress: true,
          onprogress: () => (waitingProgress += 1),
        }) as Promise<TextResult>,
      ]);
      assert.ok(Date.now() - started >= 70_000, `finished after ${Date.now() - started} ms`);
      assert.equal(quiet.isError, false, textOf(quiet));
      assert.match(textOf(quiet), /^woke\n/);
      // Keep-alives at least every 10 s over 70 s of silence.
      assert.ok(silentProgress >= 6, `${silentProgress} progress notifications for the silent command`);
      assert.equal(approved.isError, false, textOf(approved));
      assert.equal(existsSync(marker), true);
      assert.equal(t.services.prompter.asked.length, 1);
    } finally {
      rmSync(marker, { force: true });
    }
  });

  it('a prompt-level command shows the approval dialog and runs only when allowed', async () => {
    const { client } = await connect('mcp-it-client');
    const marker = path.join(dir(), 'mcp-approved.txt');
    rmSync(marker, { force: true });
    const t = await testing();
    try {
      await answerDialogs('Deny');
      const denied = await bash(client, { command: `touch ${marker}` });
      assert.equal(denied.isError, true);
      assert.match(textOf(denied), /^Command denied by the user: /);
      assert.equal(existsSync(marker), false);
      assert.equal(t.services.prompter.asked.length, 1);
      assert.ok(t.services.prompter.asked[0].detail?.includes(`touch ${marker}`));
      // The dialog names the MCP client (its clientInfo.name).
      assert.equal(t.services.prompter.asked[0].message, 'Agent Bash: mcp-it-client wants to run a command');

      await answerDialogs('Allow once');
      const allowed = await bash(client, { command: `touch ${marker}` });
      assert.equal(allowed.isError, false, textOf(allowed));
      assert.equal(existsSync(marker), true);
      assert.equal(t.services.prompter.asked.length, 1);
    } finally {
      rmSync(marker, { force: true });
    }
  });

  it('a request the client cancels or abandons while its dialog is open runs nothing, is recorded as cancelled by the client, and a late Allow is told so', async () => {
    const { client, transport } = await connect('mcp-it-cancel');
    const t = await testing();
    const history = t.history;
    assert.ok(history, 'testing.history');
    const clicks: Array<(answer: string) => void> = [];
    t.services.prompter.setResponder(() => new Promise<string>((resolve) => clicks.push(resolve)));
    const recorded = (command: string): HistoryEntry | undefined => history.entries.find((e) => e.command === command);
    const markers = [path.join(dir(), 'mcp-cancelled.txt'), path.join(dir(), 'mcp-abandoned.txt')];
    for (const m of markers) rmSync(m, { force: true });
    try {
      // 1. notifications/cancelled while the dialog is open.
      const cancelled = `touch ${markers[0]}`;
      const controller = new AbortController();
      const pending = bash(client, { command: cancelled }, controller.signal);
      pending.catch(() => undefined);
      await waitUntil(() => clicks.length === 1, 30_000, 'the approval dialog');
      controller.abort();
      await assert.rejects(pending);
      await waitUntil(() => recorded(cancelled) !== undefined, 15_000, 'the cancelled call in the history');
      const entry = recorded(cancelled) as HistoryEntry;
      assert.equal(entry.caller.name, 'mcp-it-cancel');
      assert.equal(decisionLabel(entry.decision), 'cancelled before it ran');
      assert.equal(endLabel(entry), 'Not run: cancelled by mcp-it-cancel');
      // The dialog an extension cannot close: Allow pressed there now runs nothing and says why.
      clicks[0]?.('Allow once');
      const told = withdrawnMessage({ command: cancelled, cwd: entry.cwd ?? dir(), decision: { decision: 'prompt', rule: null, kind: 'default', reason: '', segments: [], uncertain: false }, caller: entry.caller });
      await waitUntil(() => t.services.prompter.lateAnswers.length === 1, 15_000, 'the late answer to be told');
      assert.equal(t.services.prompter.lateAnswers[0], told);

      // 2. The client ends its session (DELETE) while the dialog is open.
      const abandoned = `touch ${markers[1]}`;
      const left = bash(client, { command: abandoned });
      left.catch(() => undefined);
      await waitUntil(() => clicks.length === 2, 30_000, 'the second approval dialog');
      await transport.terminateSession();
      await waitUntil(() => recorded(abandoned) !== undefined, 15_000, 'the abandoned call in the history');
      assert.equal(endLabel(recorded(abandoned) as HistoryEntry), 'Not run: cancelled by mcp-it-cancel');
      clicks[1]?.('Allow once');
      await waitUntil(() => t.services.prompter.lateAnswers.length === 2, 15_000, 'the second late answer to be told');

      // Neither command ran, not even after the late Allow; the server still serves other clients.
      const { client: after } = await connect('mcp-it-after-cancel');
      assert.equal((await bash(after, { command: 'echo after' })).isError, false);
      for (const m of markers) assert.equal(existsSync(m), false, `${m} was not created`);
      assert.equal(history.entries.filter((e) => e.command === cancelled || e.command === abandoned).length, 2);
    } finally {
      for (const m of markers) rmSync(m, { force: true });
    }
  });

  it('cancellation kills the process', async () => {
    const { client } = await connect('mcp-it-client');
    // Commands run in a PID namespace (their `$$` is not ours): find the process by a unique argv.
    const sleep = `sleep 100.${process.pid}1`;
    const controller = new AbortController();
    const pending = bash(client, { command: `sh -c '${sleep}; true'` }, controller.signal);
    pending.catch(() => undefined);
    await waitUntil(() => processesWithCommandLine(sleep).length === 1, 30_000, 'the command to start');
    controller.abort();
    await assert.rejects(pending);
    await waitUntil(() => processesWithCommandLine(sleep).length === 0, 15_000, `${sleep} to die after the cancel`);
  });

  it('closing the session leaves no process (a running command and a background job)', async () => {
    const { client, transport } = await connect('mcp-it-closing');
    const fg = `sleep 100.${process.pid}2`;
    const bg = `sleep 100.${process.pid}3`;
    const started = await bash(client, { command: `sh -c '${bg}; true'`, async: true });
    assert.match(textOf(started), /job-\d+/);
    const pending = bash(client, { command: `sh -c '${fg}; true'` });
    pending.catch(() => undefined);
    await waitUntil(() => [fg, bg].every((c) => processesWithCommandLine(c).length === 1), 30_000, 'both commands to start');
    const sid = transport.sessionId;
    await transport.terminateSession();
    for (const c of [fg, bg]) await waitUntil(() => processesWithCommandLine(c).length === 0, 15_000, `${c} to die after the session closed`);
    const t = await testing();
    assert.ok(!t.mcp?.sessionIds.includes(sid as string));
    // History names who killed the background job: the end of the client's session, and why it ended.
    const history = t.history;
    assert.ok(history, 'testing.history');
    const job = (): HistoryEntry | undefined => history.entries.find((e) => e.command === `sh -c '${bg}; true'`);
    await waitUntil(() => job() !== undefined && !endLabel(job() as HistoryEntry).startsWith('Running'), 15_000, 'the job to end in the history');
    assert.equal(endLabel(job() as HistoryEntry), "Killed by the end of mcp-it-closing's MCP session (closed by the client)");
  });

  it('two clients running ten commands each at once: all complete, no cross-talk', async () => {
    const a = await connect('mcp-it-a');
    const b = await connect('mcp-it-b');
    const runs = [a, b].flatMap((c, ci) =>
      Array.from({ length: 10 }, (_, i) => bash(c.client, { command: `echo client${ci}-cmd${i}` }).then((r) => ({ ci, i, r }))),
    );
    const results = await Promise.all(runs);
    assert.equal(results.length, 20);
    for (const { ci, i, r } of results) {
      assert.equal(r.isError, false, textOf(r));
      assert.match(textOf(r), new RegExp(`^client${ci}-cmd${i}\\n\\nWall time: [\\d.]+ seconds$`));
    }
  });
});
