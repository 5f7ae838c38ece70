import * as assert from 'node:assert/strict';
import { LocalShellExecutor } from '../../../src/exec/localExecutor';
import { processesWithEnv } from '../../../src/exec/processTree';
import { SessionCall } from '../../../src/exec/sessionCall';
import { FakeSink, processBaseline, processesWithArg, waitFor } from './helpers';

const MARK = 'AGENT_BASH_TEST_SESSION_CALL';
let seq = 0;

describe('exec: SessionCall (a bridge command in its caller\'s persistent shell)', () => {
  let executor: LocalShellExecutor;
  let baseline: ReturnType<typeof processBaseline>;

  before(() => {
    baseline = processBaseline();
    executor = new LocalShellExecutor({ shellArgs: ['-c'] });
  });

  after(async () => {
    await executor.dispose();
    assert.ok(await waitFor(() => baseline.leftSince().length === 0, 5000), JSON.stringify(baseline.leftSince()));
  });

  function call(line: string, opts: { key?: string; env?: Record<string, string>; cwd?: string; onBytes?: (b: Buffer) => void } = {}): { call: SessionCall; mark: string } {
    const mark = `s${process.pid}n${Date.now()}x${seq++}`;
    const c = new SessionCall({
      executor,
      sessionKey: opts.key ?? 'caller-a',
      line,
      cwd: opts.cwd ?? '/tmp',
      ...(opts.env ? { env: opts.env } : {}),
      mark: { name: MARK, value: mark },
      level: 'plain',
      ...(opts.onBytes ? { onBytes: opts.onBytes } : {}),
    });
    return { call: c, mark };
  }

  it('keeps the output byte-exact for the view, the sink, the pushed text and the tail, and reports the exit code', async () => {
    const seen: Buffer[] = [];
    const { call: c } = call("printf 'a\\xe6\\x97'; sleep 0.1; printf '\\xa5b\\n' >&2; (exit 3)", { onBytes: (b) => seen.push(b) });
    const sink = new FakeSink();
    c.pipeTo(sink);
    const pushed: string[] = [];
    c.onOutput((t) => pushed.push(t));
    assert.equal(c.running, true);
    assert.deepEqual(await c.exited, { exitCode: 3, signal: null });
    assert.deepEqual(c.output(), { output: 'a日b\n', truncated: false, exitStatus: { exitCode: 3, signal: null } });
    assert.equal(Buffer.concat(seen).toString('hex'), Buffer.from('a日b\n').toString('hex'));
    assert.equal(sink.text(), 'a日b\n');
    assert.equal(pushed.join(''), 'a日b\n');
    assert.equal(c.running, false);
    assert.equal(typeof c.exitedAt, 'number');
  });

  it('one shell per caller session: what a call exports is there for the next call of the same caller only', async () => {
    await call('export SESSION_CALL_X=one; cd /', { key: 'carry' }).call.exited;
    const same = call('echo "[$SESSION_CALL_X] $PWD"', { key: 'carry', cwd: '/usr' }).call;
    const other = call('echo "[${SESSION_CALL_X-}]"', { key: 'carry-other' }).call;
    await Promise.all([same.exited, other.exited]);
    // Each call runs in its own cwd; the other caller's shell never saw the export.
    assert.equal(same.output().output, '[one] /usr\n');
    assert.equal(other.output().output, '[]\n');
  });

  it('the caller\'s variables and the mark are set for the call only', async () => {
    const { call: c, mark } = call(`echo "$A_VAR $${MARK}"`, { key: 'env', env: { A_VAR: 'given' } });
    await c.exited;
    assert.equal(c.output().output, `given ${mark}\n`);
    const after = call(`echo "[\${A_VAR-}][\${${MARK}-}]"`, { key: 'env' });
    await after.call.exited;
    // The next call sees its own mark, not the first call's.
    assert.equal(after.call.output().output, `[][${after.mark}]\n`);
    assert.notEqual(after.mark, mark);
  });

  it('kill stops the command (SIGTERM) and the next call of that caller gets a fresh shell', async () => {
    await call('export KILLED_SESSION=1', { key: 'kill' }).call.exited;
    const { call: c } = call('echo started; sleep 30', { key: 'kill' });
    await waitFor(() => c.output().output === 'started\n', 5000);
    await c.kill();
    assert.deepEqual(c.exitStatus, { exitCode: null, signal: 'SIGTERM' });
    const next = call('echo "[${KILLED_SESSION-}]"', { key: 'kill' }).call;
    await next.exited;
    assert.equal(next.output().output, '[]\n');
  });

  it('a kill -9 of the shell itself reads as SIGKILL (the bridge maps it to 137)', async () => {
    const { call: c } = call('kill -9 $$', { key: 'sigkill' });
    assert.deepEqual(await c.exited, { exitCode: null, signal: 'SIGKILL' });
  });

  it('release kills what the command left running in the background; the shell stays for the next call', async () => {
    const { call: c, mark } = call('sleep 300 & echo bg', { key: 'bg' });
    await c.exited;
    assert.equal(c.output().output, 'bg\n');
    // The background sleep carries the mark once it has exec'd (a fork not yet past exec shows the shell's own environment).
    assert.ok(await waitFor(() => processesWithEnv(MARK, mark).length === 1, 5000), 'the background sleep should carry the mark');
    await c.killAll();
    assert.ok(await waitFor(() => processesWithEnv(MARK, mark).length === 0, 5000), 'the background sleep should be gone');
    await call('export BG_KEPT=1', { key: 'bg' }).call.exited;
    const next = call('echo "[$BG_KEPT]"', { key: 'bg' }).call;
    await next.exited;
    assert.equal(next.output().output, '[1]\n');
  });

  it('the next call of a caller never starts beside what its released call left: it kills the leftovers first (shellLeftovers.ts)', async () => {
    const arg = `301.${process.pid}${seq}`;
    const { call: c } = call(`setsid -f sleep ${arg}; echo started`, { key: 'leftover' });
    await c.exited;
    assert.ok(await waitFor(() => processesWithArg(`sleep ${arg}`).length === 1, 5000), 'the escaped sleep should run');
    // Released: its sweep is shared with other releases and may come later, but never after the next call began.
    await c.killAll();
    const next = call(`echo next`, { key: 'leftover' }).call;
    assert.deepEqual(await next.exited, { exitCode: 0, signal: null });
    assert.deepEqual(processesWithArg(`sleep ${arg}`), []);
  });

  it('output past the byte limit keeps the newest bytes and says it cut', async () => {
    const c = new SessionCall({ executor, sessionKey: 'limit', line: "printf 'xxxxx日本'", cwd: '/tmp', mark: { name: MARK, value: 'limit' }, level: 'plain', outputByteLimit: 4 });
    await c.exited;
    assert.deepEqual(c.output(), { output: '本', truncated: true, exitStatus: { exitCode: 0, signal: null } });
  });
});
