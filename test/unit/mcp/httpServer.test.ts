// The HTTP MCP server's own logic with a fake pipeline: the gate (token, loopback Host/Origin), one
// caller session per MCP session, isolation between clients, and every way a session ends killing
// what it started. The real pipeline over HTTP is covered inside VS Code (test/integration/mcp.test.ts).
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallerInfo, ToolResult } from '../../../src/core/contracts';
import { BashJobManager } from '../../../src/exec/jobManager';
import { createBashMcpServer } from '../../../src/mcp/bashMcpServer';
import { checkMcpRequest, GATE_MESSAGES } from '../../../src/mcp/httpGate';
import { McpHttpServer } from '../../../src/mcp/httpServer';
import { McpCallerSession } from '../../../src/mcp/mcpSession';
import type { McpBackend } from '../../../src/mcp/mcpTools';
import { waitFor } from '../exec/helpers';

const TOKEN = 'test-token-0123456789';

interface Call {
  input: { command: string; async?: boolean };
  caller: CallerInfo;
  signal: AbortSignal;
}

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

/** A pipeline stand-in: `block` waits for its signal; `async` registers a job that waits too. */
function fakeBackend(jobs: BashJobManager): { backend: McpBackend; calls: Call[] } {
  const calls: Call[] = [];
  const untilAborted = (signal: AbortSignal): Promise<void> =>
    new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  const backend: McpBackend = {
    jobs,
    artifacts: { allocate: () => ({ id: '1', path: '/nonexistent' }), save: async () => '1', pathOf: () => undefined, dir: '/nonexistent' },
    asyncEnabled: () => true,
    async run(raw, opts): Promise<ToolResult> {
      const input = raw as Call['input'];
      calls.push({ input, caller: opts.caller, signal: opts.signal });
      if (input.async) {
        const job = jobs.register(input.command, async (ctx) => {
          await untilAborted(ctx.signal);
          return { content: [{ type: 'text', text: 'job ended' }], details: {} };
        });
        return { content: [{ type: 'text', text: `started ${job.id}` }], details: { async: { state: 'running', jobId: job.id, type: 'bash' } } };
      }
      if (input.command === 'block') {
        await untilAborted(opts.signal);
        return { content: [{ type: 'text', text: 'Command aborted' }], details: {}, isError: true };
      }
      return { content: [{ type: 'text', text: `ran ${input.command} for ${opts.caller.sessionId}` }], details: { exitCode: 0 } };
    },
  };
  return { backend, calls };
}

function rawRequest(port: number, headers: Record<string, string>, body = '{}'): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('mcp: http gate', () => {
  const ok = { url: '/mcp', headers: { host: '127.0.0.1:4000', authorization: `Bearer ${TOKEN}` } };

  it('lets a loopback request with the token through', () => {
    assert.equal(checkMcpRequest(ok, TOKEN), undefined);
    assert.equal(checkMcpRequest({ url: '/mcp?x=1', headers: { ...ok.headers, host: 'localhost:4000', origin: 'http://localhost:3000' } }, TOKEN), undefined);
    assert.equal(checkMcpRequest({ url: '/mcp', headers: { ...ok.headers, host: '[::1]:4000', origin: 'http://127.0.0.1' } }, TOKEN), undefined);
  });

  it('answers 401 without the token or with a wrong one', () => {
    assert.deepEqual(checkMcpRequest({ url: '/mcp', headers: { host: '127.0.0.1:4000' } }, TOKEN), { status: 401, message: GATE_MESSAGES.noToken });
    assert.deepEqual(checkMcpRequest({ url: '/mcp', headers: { ...ok.headers, authorization: 'Bearer nope' } }, TOKEN), { status: 401, message: GATE_MESSAGES.badToken });
    assert.deepEqual(checkMcpRequest({ url: '/mcp', headers: { ...ok.headers, authorization: `Basic ${TOKEN}` } }, TOKEN), { status: 401, message: GATE_MESSAGES.noToken });
  });

  it('answers 403 for a foreign Host or Origin, even with the token', () => {
    assert.deepEqual(checkMcpRequest({ url: '/mcp', headers: { ...ok.headers, host: 'evil.example:4000' } }, TOKEN), { status: 403, message: GATE_MESSAGES.badHost('evil.example:4000') });
    assert.deepEqual(checkMcpRequest({ url: '/mcp', headers: { ...ok.headers, origin: 'http://evil.example' } }, TOKEN), { status: 403, message: GATE_MESSAGES.badOrigin('http://evil.example') });
    assert.deepEqual(checkMcpRequest({ url: '/mcp', headers: { ...ok.headers, origin: 'null' } }, TOKEN), { status: 403, message: GATE_MESSAGES.badOrigin('null') });
    assert.deepEqual(checkMcpRequest({ url: '/mcp', headers: { ...ok.headers, host: '127.0.0.1.evil.example' } }, TOKEN), { status: 403, message: GATE_MESSAGES.badHost('127.0.0.1.evil.example') });
  });

  it('answers 404 off the /mcp path', () => {
    assert.deepEqual(checkMcpRequest({ url: '/other', headers: ok.headers }, TOKEN), { status: 404, message: GATE_MESSAGES.notFound('/other') });
  });
});

describe('mcp: http server', function () {
  this.timeout(30_000);
  let jobs: BashJobManager;
  let calls: Call[];
  let server: McpHttpServer;
  let port: number;
  const sessions = new Map<string, McpCallerSession>();
  const clients: Client[] = [];

  async function connect(name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  async function bash(client: Client, args: Record<string, unknown>, signal?: AbortSignal): Promise<TextResult> {
    return (await client.callTool({ name: 'bash', arguments: args }, undefined, signal ? { signal } : undefined)) as TextResult;
  }

  /** The test that is about the idle sweep gets a short idle timeout; the others one that a busy machine's pauses do not reach. */
  const IDLE_TEST = 'a client that drops its connections (no DELETE) is closed after the idle timeout, its jobs killed';

  beforeEach(async function () {
    jobs = new BashJobManager();
    const fake = fakeBackend(jobs);
    calls = fake.calls;
    server = new McpHttpServer({
      port: 0,
      token: () => TOKEN,
      idleTimeoutMs: this.currentTest?.title === IDLE_TEST ? 2000 : 60_000,
      createSession: (id) => {
        const session = new McpCallerSession(id, jobs);
        sessions.set(id, session);
        return { server: createBashMcpServer(fake.backend, session, '0.0.0'), session };
      },
    });
    port = await server.start();
  });

  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((c) => c.close()));
    await server.close();
    await jobs.dispose();
    sessions.clear();
  });

  it('refuses a request without the token (401) and with a foreign Origin (403)', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const noToken = await rawRequest(port, { accept: 'application/json, text/event-stream' }, init);
    assert.equal(noToken.status, 401);
    assert.equal(noToken.headers['www-authenticate'], 'Bearer realm="agent-bash"');
    assert.equal(JSON.parse(noToken.text).error.message, GATE_MESSAGES.noToken);
    const foreign = await rawRequest(port, { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example', accept: 'application/json, text/event-stream' }, init);
    assert.equal(foreign.status, 403);
    const rebound = await rawRequest(port, { authorization: `Bearer ${TOKEN}`, host: `evil.example:${port}` }, init);
    assert.equal(rebound.status, 403);
    assert.deepEqual(server.sessionIds, []);
    assert.equal(calls.length, 0);
  });

  it('runs bash with the caller named by clientInfo and the MCP session id', async () => {
    const { client, transport } = await connect('Claude Code');
    const r = await bash(client, { command: 'hello' });
    assert.equal(r.content[0].text, `ran hello for ${transport.sessionId}`);
    assert.equal(r.isError, false);
    assert.deepEqual(calls[0].caller, { kind: 'mcp', name: 'Claude Code', sessionId: transport.sessionId });
    assert.deepEqual(server.sessionIds, [transport.sessionId]);
  });

  it('two clients, ten calls each at once: all complete, no cross-talk', async () => {
    const a = await connect('client-a');
    const b = await connect('client-b');
    const runs = [a, b].flatMap((c, ci) => Array.from({ length: 10 }, (_, i) => bash(c.client, { command: `c${ci}-${i}` }).then((r) => ({ ci, i, r }))));
    for (const { ci, i, r } of await Promise.all(runs)) {
      const sid = ci === 0 ? a.transport.sessionId : b.transport.sessionId;
      assert.equal(r.content[0].text, `ran c${ci}-${i} for ${sid}`);
    }
    assert.equal(calls.length, 20);
    for (const call of calls) assert.equal(call.caller.name, call.input.command.startsWith('c0') ? 'client-a' : 'client-b');
  });

  it("a client cannot read or kill another client's job", async () => {
    const a = await connect('client-a');
    const b = await connect('client-b');
    const started = await bash(a.client, { command: 'bg', async: true });
    assert.match(started.content[0].text, /^started job-1/);
    for (const tool of ['bash_output', 'bash_kill']) {
      const r = (await b.client.callTool({ name: tool, arguments: { job_id: 'job-1' } })) as TextResult;
      assert.equal(r.isError, true);
      assert.equal(r.content[0].text, 'No background job job-1 in this MCP session.');
    }
    assert.equal(jobs.get('job-1')?.state, 'running');
    const killed = (await a.client.callTool({ name: 'bash_kill', arguments: { job_id: 'job-1' } })) as TextResult;
    assert.equal(killed.content[0].text, 'Job job-1 killed.');
    assert.equal(jobs.get('job-1')?.state, 'cancelled');
  });

  it('cancellation aborts the running call', async () => {
    const { client } = await connect('c');
    const controller = new AbortController();
    const pending = bash(client, { command: 'block' }, controller.signal);
    pending.catch(() => undefined);
    assert.ok(await waitFor(() => calls.length === 1, 5000));
    controller.abort();
    await assert.rejects(pending);
    assert.ok(await waitFor(() => calls[0].signal.aborted, 5000), 'the call was not aborted');
  });

  it('DELETE ends the session: its running call and its jobs are killed', async () => {
    const { client, transport } = await connect('c');
    await bash(client, { command: 'bg', async: true });
    const pending = bash(client, { command: 'block' });
    pending.catch(() => undefined);
    assert.ok(await waitFor(() => calls.length === 2, 5000));
    await transport.terminateSession();
    assert.ok(await waitFor(() => calls[1].signal.aborted && jobs.get('job-1')?.state === 'cancelled', 5000));
    assert.deepEqual(server.sessionIds, []);
  });

  it('a dropped connection under a running call aborts that call', async () => {
    const { transport } = await connect('c');
    const sid = transport.sessionId as string;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'bash', arguments: { command: 'block' } } });
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
      },
    });
    req.on('error', () => undefined);
    req.end(body);
    assert.ok(await waitFor(() => calls.length === 1, 5000));
    req.destroy();
    assert.ok(await waitFor(() => calls[0].signal.aborted, 5000), 'the call outlived its connection');
  });

  it(IDLE_TEST, async () => {
    const { client, transport } = await connect('c');
    await bash(client, { command: 'bg', async: true });
    const sid = transport.sessionId as string;
    // Silent but holding its server-to-client stream: still there well past the idle timeout.
    await new Promise((resolve) => setTimeout(resolve, 4500));
    assert.deepEqual(server.sessionIds, [sid]);
    assert.equal(jobs.get('job-1')?.state, 'running');
    await client.close(); // closes the stream, sends no DELETE
    assert.ok(await waitFor(() => server.sessionIds.length === 0, 10_000), 'the abandoned session stayed');
    assert.ok(await waitFor(() => jobs.get('job-1')?.state === 'cancelled', 5000));
    assert.equal(sessions.get(sid)?.closed, true);
  });

  it('close() ends every session', async () => {
    const { client } = await connect('c');
    const pending = bash(client, { command: 'block' });
    pending.catch(() => undefined);
    assert.ok(await waitFor(() => calls.length === 1, 5000));
    await server.close();
    assert.ok(await waitFor(() => calls[0].signal.aborted, 5000));
  });
});
