// The stdio transport under bad input (issue 33): every malformed line gets the JSON-RPC error the spec
// names and the session goes on; a line over 10 MiB gets an error and the session survives; nothing
// runs before `initialize`. Raw lines to the real server (no SDK client could send them), then the
// SDK client's view of the same server.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { leadingId, MAX_MESSAGE_BYTES, TRANSPORT_MESSAGES } from '../../../src/mcp/stdioTransport';
import { CLI, serverEnv } from './stdioHelpers';

type Reply = { jsonrpc: string; id: string | number | null; result?: Record<string, unknown>; error?: { code: number; message: string } };

/** The server on raw pipes: lines in, parsed replies out, in order. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly replies: Reply[] = [];
  private buffered = '';
  private waiters: Array<() => void> = [];

  constructor(args: string[], cwd: string) {
    this.child = spawn(process.execPath, [CLI, 'mcp', ...args], { cwd, env: serverEnv(cwd) });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.buffered += d;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) !== -1) {
        this.replies.push(JSON.parse(this.buffered.slice(0, nl)) as Reply);
        this.buffered = this.buffered.slice(nl + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.once('exit', () => {
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr.resume();
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Reply number `index` (0-based, in arrival order), once it has come. */
  async reply(index: number): Promise<Reply> {
    while (this.replies.length <= index) {
      if (this.child.exitCode !== null) throw new Error(`the server exited (${this.child.exitCode}) before reply ${index}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
    return this.replies[index];
  }

  async stop(): Promise<number | null> {
    this.child.stdin.end();
    if (this.child.exitCode === null) await new Promise((r) => this.child.once('exit', r));
    return this.child.exitCode;
  }
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

describe('mcp stdio: transport', function () {
  this.timeout(300_000);
  let tmp: string;

  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-transport-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('finds the id at the start of an oversized message', () => {
    assert.equal(leadingId('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"arguments":{"command":"xxxx'), 42);
    assert.equal(leadingId('{"jsonrpc":"2.0","method":"tools/call","params":{"id":7,"x":"'), null);
    assert.equal(leadingId('{"id":"a\\"b","params":{'), 'a"b');
    assert.equal(leadingId('{"params":{"id":1},"id":3,"x":"'), 3);
    assert.equal(leadingId('{"id":{"a":1}'), null);
  });

  it('answers every malformed line with the error the spec names, and keeps serving', async () => {
    const server = new RawServer(['--cwd', tmp], tmp);
    try {
      const bad: Array<[string, string | number | null, number, string | RegExp]> = [
        ['{"jsonrpc":"2.0","id":1,"method":"initia', null, -32700, /^Parse error: the line is not JSON \(/],
        ['not json at all', null, -32700, /^Parse error: the line is not JSON \(/],
        ['12345', null, -32600, TRANSPORT_MESSAGES.notObject],
        ['"a string"', null, -32600, TRANSPORT_MESSAGES.notObject],
        ['{"foo":1}', null, -32600, TRANSPORT_MESSAGES.version],
        ['{"jsonrpc":"2.0","id":5,"method":"tools/list","params":"x"}', 5, -32600, /^Invalid Request: /],
        ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', null, -32600, /^Invalid Request: /],
        ['{"jsonrpc":"1.0","id":6,"method":"ping"}', 6, -32600, TRANSPORT_MESSAGES.version],
        [`[${INIT}]`, null, -32600, TRANSPORT_MESSAGES.batch],
        ['[]', null, -32600, TRANSPORT_MESSAGES.batch],
      ];
      for (const [i, [line, id, code, message]] of bad.entries()) {
        server.send(line);
        const r = await server.reply(i);
        assert.equal(r.jsonrpc, '2.0');
        assert.equal(r.id, id, line);
        const error = r.error;
        assert.ok(error, line);
        assert.equal(error.code, code, line);
        if (typeof message === 'string') assert.equal(error.message, message, line);
        else assert.match(error.message, message, line);
      }
      server.send(INIT);
      const init = await server.reply(bad.length);
      assert.equal(init.id, 'init');
      assert.equal((init.result?.serverInfo as { name: string }).name, 'agent-bash');
      assert.equal(server.child.exitCode, null);
    } finally {
      await server.stop();
    }
  });

  it('a line of 10 MiB or more gets an error with its id and the session survives (a running job too)', async () => {
    const server = new RawServer(['--yes', '--cwd', tmp], tmp);
    try {
      server.send(INIT);
      await server.reply(0);
      server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 'job', method: 'tools/call', params: { name: 'bash', arguments: { command: 'sleep 600', async: true } } }));
      const job = await server.reply(1);
      const jobId = /job-\d+/.exec(JSON.stringify(job.result))?.[0];
      assert.ok(jobId, JSON.stringify(job));
      const huge = JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'bash', arguments: { command: `echo ${'x'.repeat(MAX_MESSAGE_BYTES)}` } } });
      // Written in pieces, as a pipe delivers it.
      for (let at = 0; at < huge.length; at += 1 << 20) server.child.stdin.write(huge.slice(at, at + (1 << 20)));
      server.child.stdin.write('\n');
      const r = await server.reply(2);
      assert.deepEqual(r, { jsonrpc: '2.0', id: 77, error: { code: -32600, message: TRANSPORT_MESSAGES.tooLarge(MAX_MESSAGE_BYTES) } });
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'tools/call', params: { name: 'bash_output', arguments: { job_id: jobId } } }));
      const after = await server.reply(3);
      assert.equal(after.id, 'after');
      assert.match(JSON.stringify(after.result), new RegExp(`Job ${jobId} is still running`));
    } finally {
      await server.stop();
    }
  });

  it('refuses tools/call before initialize and runs nothing', async () => {
    const marker = path.join(tmp, 'ran-before-initialize');
    const server = new RawServer(['--yes', '--cwd', tmp], tmp);
    try {
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bash', arguments: { command: `touch ${marker}` } } }));
      const refused = await server.reply(0);
      assert.deepEqual(refused, { jsonrpc: '2.0', id: 1, error: { code: -32600, message: TRANSPORT_MESSAGES.notInitialized('tools/call') } });
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
      assert.deepEqual(await server.reply(1), { jsonrpc: '2.0', id: 2, result: {} });
      server.send(INIT);
      await server.reply(2);
      server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      // After initialize the same call runs: the refused one did not, and never will.
      const other = path.join(tmp, 'ran-after-initialize');
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'bash', arguments: { command: `touch ${other}` } } }));
      const ran = await server.reply(3);
      assert.equal(ran.result?.isError, false, JSON.stringify(ran));
      assert.equal(existsSync(other), true);
      assert.equal(existsSync(marker), false);
    } finally {
      await server.stop();
    }
  });
});
