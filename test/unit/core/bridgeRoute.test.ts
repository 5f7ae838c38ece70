import * as assert from 'node:assert/strict';
import type { OutputSinkLike, OutputSummary, TimeoutInfo, ToolResult } from '../../../src/core/contracts';
import {
  BridgeRunRequest,
  COMMAND_ABORTED,
  runBridgeCommand,
  SIGNAL_EXIT_CODE,
  wrapShellLine,
} from '../../../src/core/bridgeRoute';
import { ToolAbortError, ToolError } from '../../../src/core/errors';
import { MISSING_EXIT_STATUS } from '../../../src/core/output/results';
import { clampTimeout } from '../../../src/core/timeout';
import { deferred, FakeClientBridge, FakeTerminalHandle, never } from './bridgeFakes';

const shell = { command: '/bin/bash', args: ['-l', '-c'] };
const TIMEOUT_1S_FAST: TimeoutInfo = { requested: 1, timeoutSec: 1, timeoutMs: 80 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Tells "bounded by its grace" from "hangs" (a hung call never settles), with room for a busy machine. */
const HANG_BOUND_MS = 10_000;
/** Waits for a condition the code under test reaches asynchronously; the test's own timeout is the bound. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await sleep(5);
}
const textOf = (r: ToolResult) => r.content.map((c) => c.text).join('\n');

function req(bridge: FakeClientBridge, extra: Partial<BridgeRunRequest> = {}): BridgeRunRequest {
  return {
    bridge,
    line: 'echo hi',
    shell,
    cwd: '/work',
    timeout: clampTimeout(undefined, 0),
    pollIntervalMs: 5,
    ...extra,
  };
}

/** Records the stream it is given; dump() reports everything. */
class FakeSink implements OutputSinkLike {
  chunks: string[] = [];
  disposed = 0;
  push(chunk: Uint8Array | string): void {
    this.chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  }
  async dump(): Promise<OutputSummary> {
    const output = this.chunks.join('');
    return {
      output,
      truncated: false,
      totalLines: output.split('\n').length,
      totalBytes: output.length,
      outputLines: output.split('\n').length,
      outputBytes: output.length,
      artifactId: '9',
    };
  }
  dispose(): void {
    this.disposed++;
  }
}

describe('core/bridgeRoute', () => {
  it('wraps the line as shell + args, never as the command (#4333)', () => {
    assert.deepEqual(wrapShellLine('git status && echo x | head', shell), {
      command: '/bin/bash',
      args: ['-l', '-c', 'git status && echo x | head'],
    });
    assert.deepEqual(wrapShellLine('ls', { ...shell, prefix: 'strace -f' }), {
      command: '/bin/bash',
      args: ['-l', '-c', 'strace -f ls'],
    });
  });

  it('creates the terminal with cwd, env and the byte limit; first update carries terminalId', async () => {
    const bridge = new FakeClientBridge();
    const updates: ToolResult[] = [];
    const run = runBridgeCommand(req(bridge, { line: 'git status && echo x | head', env: { A: '1' }, onUpdate: (u) => updates.push(u) }));
    await sleep(20);
    bridge.handle.output = 'hello\n';
    bridge.handle.exit.resolve({ exitCode: 0, signal: null });
    const result = await run;
    assert.deepEqual(bridge.created, [
      {
        command: '/bin/bash',
        args: ['-l', '-c', 'git status && echo x | head'],
        cwd: '/work',
        outputByteLimit: 51200,
        env: [{ name: 'A', value: '1' }],
      },
    ]);
    assert.deepEqual(updates[0], { content: [], details: { terminalId: 'term-1' } });
    assert.ok(updates.slice(1).every((u) => u.details.terminalId === 'term-1'));
    assert.ok(textOf(result).startsWith('hello'));
    assert.equal(result.isError, undefined);
    assert.equal(result.details.terminalId, 'term-1');
    assert.equal(bridge.handle.releaseCount, 1);
    assert.equal(bridge.handle.killCount, 0);
  });

  it('omits env when there is none', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.exit.resolve({ exitCode: 0, signal: null });
    await runBridgeCommand(req(bridge));
    assert.equal('env' in bridge.created[0]!, false);
  });

  it('exit 3 → error result with the code', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.exit.resolve({ exitCode: 3, signal: null });
    const result = await runBridgeCommand(req(bridge));
    assert.equal(result.isError, true);
    assert.equal(result.details.exitCode, 3);
    assert.match(textOf(result), /Command exited with code 3/);
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it('exitCode null with a signal → 137', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.exit.resolve({ exitCode: null, signal: 'SIGKILL' });
    const result = await runBridgeCommand(req(bridge));
    assert.equal(SIGNAL_EXIT_CODE, 137);
    assert.equal(result.details.exitCode, 137);
    assert.match(textOf(result), /Command exited with code 137/);
  });

  it('neither code nor signal → Command failed: missing exit status', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.output = 'partial';
    bridge.handle.exit.resolve({ exitCode: null, signal: null });
    await assert.rejects(runBridgeCommand(req(bridge)), (e: unknown) => {
      assert.ok(e instanceof ToolError);
      assert.ok(e.message.startsWith('partial'));
      assert.ok(e.message.endsWith(`\n\n${MISSING_EXIT_STATUS}`));
      assert.equal(MISSING_EXIT_STATUS, 'Command failed: missing exit status');
      return true;
    });
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it('a client-truncated output gets the (output truncated) notice; clamp notices follow', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.output = 'tail of it';
    bridge.handle.truncated = true;
    bridge.handle.exit.resolve({ exitCode: 0, signal: null });
    const result = await runBridgeCommand(req(bridge, { notices: ['Timeout clamped to 3600s (requested 5000s; allowed range 1-3600s; `timeout` is in seconds, not milliseconds).'] }));
    const text = textOf(result);
    assert.ok(text.indexOf('(output truncated)') > 0);
    assert.ok(text.indexOf('Timeout clamped') > text.indexOf('(output truncated)'));
  });

  it('timeout: kills before reading the output, returns a timedOut error result', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.output = 'working...';
    bridge.handle.killBehaviour = async () => {
      bridge.handle.output += '\ndying';
    };
    const result = await runBridgeCommand(req(bridge, { timeout: TIMEOUT_1S_FAST, pollIntervalMs: 1000 }));
    const log = bridge.handle.log;
    const kill = log.indexOf('kill');
    assert.ok(kill >= 0);
    assert.equal(log.indexOf('currentOutput', kill) > kill, true, log.join(','));
    assert.equal(log.slice(0, kill).includes('currentOutput'), false, 'no read before the kill');
    assert.equal(result.isError, true);
    assert.equal(result.details.timedOut, true);
    const text = textOf(result);
    assert.ok(text.startsWith('working...\ndying'));
    assert.equal(text.split('[Command timed out after 1 seconds]').length - 1, 1);
    assert.equal(bridge.handle.killCount, 1);
    // The terminal's status line says why: a timeout, not a bare signal.
    assert.deepEqual(bridge.handle.killReasons, ['timed out after 1 s']);
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it("a cancel kills with the caller's name as the reason", async () => {
    const bridge = new FakeClientBridge();
    const ac = new AbortController();
    const run = runBridgeCommand(req(bridge, { signal: ac.signal, caller: { kind: 'mcp', name: 'claude-code', sessionId: 's' } }));
    // Cancelled once the command runs (it waits for the exit then).
    while (!bridge.handle.log.includes('waitForExit')) await new Promise((r) => setImmediate(r));
    ac.abort();
    await assert.rejects(run, { name: 'ToolAbortError' });
    assert.deepEqual(bridge.handle.killReasons, ['cancelled by claude-code']);
  });

  it('a hung poll-tick currentOutput still times out', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.currentOutputBehaviour = () => never();
    const t0 = Date.now();
    const result = await runBridgeCommand(req(bridge, { timeout: TIMEOUT_1S_FAST, outputGraceMs: 30, killGraceMs: 30 }));
    assert.equal(result.details.timedOut, true);
    assert.ok(Date.now() - t0 < HANG_BOUND_MS, `took ${Date.now() - t0} ms`);
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it('timeout during create: a timed-out result; the late terminal is killed and released once', async () => {
    const bridge = new FakeClientBridge();
    const gate = deferred<void>();
    bridge.gate = gate.promise;
    const result = await runBridgeCommand(req(bridge, { timeout: TIMEOUT_1S_FAST }));
    assert.equal(result.details.timedOut, true);
    assert.equal(result.isError, true);
    assert.equal(bridge.handle.releaseCount, 0);
    gate.resolve();
    await until(() => bridge.handle.releaseCount > 0);
    assert.equal(bridge.handle.killCount, 1);
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it('abort before create: Command aborted, nothing created', async () => {
    const bridge = new FakeClientBridge();
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(runBridgeCommand(req(bridge, { signal: ac.signal })), (e: unknown) => {
      assert.ok(e instanceof ToolAbortError);
      assert.equal(e.message, COMMAND_ABORTED);
      return true;
    });
    assert.equal(bridge.created.length, 0);
  });

  it('abort during create: rejects; the late terminal is killed and released once', async () => {
    const bridge = new FakeClientBridge();
    const gate = deferred<void>();
    bridge.gate = gate.promise;
    const ac = new AbortController();
    const run = runBridgeCommand(req(bridge, { signal: ac.signal }));
    await sleep(5);
    ac.abort();
    await assert.rejects(run, { name: 'ToolAbortError', message: 'Command aborted' });
    gate.resolve();
    await until(() => bridge.handle.releaseCount > 0);
    assert.equal(bridge.handle.killCount, 1);
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it('abort while running: kill ×1, release ×1, Command aborted', async () => {
    const bridge = new FakeClientBridge();
    const ac = new AbortController();
    const run = runBridgeCommand(req(bridge, { signal: ac.signal }));
    await sleep(20);
    ac.abort();
    await assert.rejects(run, { name: 'ToolAbortError', message: 'Command aborted' });
    assert.equal(bridge.handle.killCount, 1);
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it('abort with a hung kill still returns within the kill grace', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.killBehaviour = () => never();
    const ac = new AbortController();
    const run = runBridgeCommand(req(bridge, { signal: ac.signal, killGraceMs: 30 }));
    await sleep(10);
    const t0 = Date.now();
    ac.abort();
    await assert.rejects(run, /Command aborted/);
    assert.ok(Date.now() - t0 < HANG_BOUND_MS, `took ${Date.now() - t0} ms`);
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it('a hung release does not block the result', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.releaseBehaviour = () => never();
    bridge.handle.exit.resolve({ exitCode: 0, signal: null });
    const t0 = Date.now();
    const result = await runBridgeCommand(req(bridge, { releaseGraceMs: 40 }));
    assert.equal(result.isError, undefined);
    assert.ok(Date.now() - t0 < HANG_BOUND_MS, `took ${Date.now() - t0} ms`);
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it('a final currentOutput that throws falls back to the last polled output', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.output = 'polled text';
    const run = runBridgeCommand(req(bridge));
    await sleep(30);
    bridge.handle.currentOutputBehaviour = () => Promise.reject(new Error('gone'));
    bridge.handle.exit.resolve({ exitCode: 0, signal: null });
    const result = await run;
    assert.equal(result.isError, undefined);
    assert.ok(textOf(result).startsWith('polled text'));
  });

  it('a hung final currentOutput is bounded by the output grace', async () => {
    const bridge = new FakeClientBridge();
    bridge.handle.currentOutputBehaviour = () => never();
    bridge.handle.exit.resolve({ exitCode: 0, signal: null });
    const t0 = Date.now();
    await runBridgeCommand(req(bridge, { outputGraceMs: 40 }));
    assert.ok(Date.now() - t0 < HANG_BOUND_MS, `took ${Date.now() - t0} ms`);
  });

  it('a waitForExit rejection propagates the client error; release still happens once', async () => {
    const bridge = new FakeClientBridge();
    const boom = new Error('client went away');
    bridge.handle.exit.reject(boom);
    await assert.rejects(runBridgeCommand(req(bridge)), (e: unknown) => e === boom);
    assert.equal(bridge.handle.releaseCount, 1);
  });

  it('pushed output: updates on push, and exit is seen at once even with a 10 s poll interval', async () => {
    const handle = new FakeTerminalHandle('push-1', { push: true });
    const bridge = new FakeClientBridge(handle);
    const updates: ToolResult[] = [];
    const run = runBridgeCommand(req(bridge, { pollIntervalMs: 10_000, onUpdate: (u) => updates.push(u) }));
    await sleep(5);
    handle.push('one\n');
    await sleep(60);
    handle.push('two\n');
    await sleep(60);
    const exitedAt = Date.now();
    handle.exit.resolve({ exitCode: 0, signal: null });
    const result = await run;
    assert.ok(Date.now() - exitedAt < 5000, `took ${Date.now() - exitedAt} ms: it waited for the 10 s poll`);
    const texts = updates.slice(1).map((u) => textOf(u));
    assert.deepEqual(texts, ['one\n', 'one\ntwo\n']);
    assert.ok(textOf(result).startsWith('one\ntwo'));
    assert.equal(handle.releaseCount, 1);
  });

  it('a handle that pushes its output is never polled: no currentOutput while it runs, however short the poll interval', async () => {
    const handle = new FakeTerminalHandle('push-nopoll', { push: true, pipe: true });
    const bridge = new FakeClientBridge(handle);
    const sink = new FakeSink();
    const updates: ToolResult[] = [];
    const run = runBridgeCommand(req(bridge, { pollIntervalMs: 1, createSink: () => sink, onUpdate: (u) => updates.push(u) }));
    // Many poll intervals pass while the command runs; pushes are the only updates.
    await sleep(50);
    handle.push('x\n');
    await sleep(50);
    handle.exit.resolve({ exitCode: 0, signal: null });
    await run;
    assert.equal(handle.log.filter((c) => c === 'currentOutput').length, 0, handle.log.join(','));
    assert.deepEqual(updates.slice(1).map((u) => textOf(u)), ['x\n']);
    assert.deepEqual(sink.chunks, ['x\n']);
  });

  it('pushed output is throttled to one update per interval', async () => {
    const handle = new FakeTerminalHandle('push-2', { push: true });
    const bridge = new FakeClientBridge(handle);
    const updates: ToolResult[] = [];
    const run = runBridgeCommand(req(bridge, { pollIntervalMs: 10_000, pushThrottleMs: 50, onUpdate: (u) => updates.push(u) }));
    await sleep(5);
    for (let i = 0; i < 20; i++) handle.push(`${i}\n`);
    await sleep(80);
    handle.exit.resolve({ exitCode: 0, signal: null });
    await run;
    const pushes = updates.slice(1);
    assert.equal(pushes.length, 2, pushes.map(textOf).join('|'));
    assert.ok(textOf(pushes[1]!).endsWith('19\n'));
  });

  it('pipeTo: the sink gets the full stream and the result comes from it (with its artifact)', async () => {
    const handle = new FakeTerminalHandle('pipe-1', { push: true, pipe: true });
    const bridge = new FakeClientBridge(handle);
    const sink = new FakeSink();
    const run = runBridgeCommand(req(bridge, { createSink: () => sink }));
    await sleep(5);
    handle.push('a\n');
    handle.push('b\n');
    handle.exit.resolve({ exitCode: 0, signal: null });
    const result = await run;
    assert.equal(handle.pipedTo, sink);
    assert.deepEqual(sink.chunks, ['a\n', 'b\n']);
    assert.ok(textOf(result).startsWith('a\nb'));
    assert.equal(sink.disposed, 1);
  });

  it('timeout 0 arms no deadline', async () => {
    const bridge = new FakeClientBridge();
    const run = runBridgeCommand(req(bridge, { timeout: clampTimeout(0, 0) }));
    await sleep(60);
    bridge.handle.exit.resolve({ exitCode: 0, signal: null });
    const result = await run;
    assert.equal(result.details.timedOut, undefined);
    assert.equal(bridge.handle.killCount, 0);
  });
});
