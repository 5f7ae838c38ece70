import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OutputSink } from '../../../src/core/output/outputSink';
import { CrNormalizer, NodePtyExecutor } from '../../../src/exec/ptyExecutor';
import { alive, FakeSink, processBaseline, sleep, waitFor } from './helpers';

describe('exec: NodePtyExecutor', function () {
  this.timeout(20_000);
  let tmp: string;
  // No login profile (it can take a second on a busy machine); the default login path is covered
  // by the local executor's tests.
  const pty = new NodePtyExecutor({ shellArgs: ['-c'] });

  let baseline: ReturnType<typeof processBaseline>;

  before(() => {
    baseline = processBaseline();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-pty-'));
  });

  after(async () => {
    await pty.dispose();
    rmSync(tmp, { recursive: true, force: true });
    assert.ok(await waitFor(() => baseline.leftSince().length === 0, 3000), JSON.stringify(baseline.leftSince()));
  });

  /** Resolves once the live view has shown `text`. */
  function seen(chunks: string[], text: string, ms = 5000): Promise<boolean> {
    return waitFor(() => chunks.join('').includes(text), ms);
  }

  it('answers `read x; echo got $x` through write', async () => {
    const sink = new FakeSink();
    const live: string[] = [];
    const session = pty.start({
      command: 'printf "ready\\n"; read x; echo "got $x"',
      cwd: tmp,
      timeoutMs: 20_000,
      sink,
      onData: (d) => live.push(d),
    });
    assert.ok(await seen(live, 'ready'));
    session.write('hello\r');
    const result = await session.result;
    assert.equal(result.exitCode, 0);
    assert.equal(result.cancelled, false);
    // The terminal echoes the typed line; CRLF arrives as LF in the captured copy.
    assert.equal(sink.text(), 'ready\nhello\ngot hello\n');
    assert.ok(live.join('').includes('got hello\r\n'), 'the live view keeps the raw CRLF');
  });

  it('unsets the environment stage’s variables before the command', async () => {
    const own = new NodePtyExecutor({ shellArgs: ['-c'], baseEnv: { ...process.env, AB_DROP_ME: 'present' } });
    try {
      const sink = new FakeSink();
      const result = await own.start({ command: 'echo "${AB_DROP_ME:-gone}"', cwd: tmp, timeoutMs: 20_000, unset: ['AB_DROP_ME'], sink }).result;
      assert.equal(result.exitCode, 0);
      assert.equal(sink.text(), 'gone\n');
    } finally {
      await own.dispose();
    }
  });

  it('uses the requested size and reports a resize to `tput cols`', async () => {
    const sink = new FakeSink();
    const live: string[] = [];
    const session = pty.start({
      command: 'tput cols; read x; tput cols; stty size',
      cwd: tmp,
      timeoutMs: 20_000,
      cols: 100,
      rows: 30,
      sink,
      onData: (d) => live.push(d),
    });
    assert.ok(await seen(live, '100'));
    session.resize(132, 40);
    session.write('\r');
    const result = await session.result;
    assert.equal(result.exitCode, 0);
    assert.equal(sink.text(), '100\n\n132\n40 132\n');
  });

  it('kill() ends the whole group (Esc): cancelled, no survivor', async () => {
    const sink = new FakeSink();
    const live: string[] = [];
    const pidFile = path.join(tmp, 'pty-pids');
    const session = pty.start({
      command: `sleep 100 & echo $! > ${pidFile}; echo started; sleep 100`,
      cwd: tmp,
      timeoutMs: 0,
      sink,
      onData: (d) => live.push(d),
    });
    assert.ok(await seen(live, 'started'));
    const started = Date.now();
    session.kill();
    const result = await session.result;
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.equal(result.cancelled, true);
    assert.equal(result.timedOut, false);
    assert.equal(result.exitCode, undefined);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.equal(alive(pid), false);
  });

  it('times out', async () => {
    const sink = new FakeSink();
    const result = await pty.start({ command: 'echo go; sleep 60', cwd: tmp, timeoutMs: 3000, sink }).result;
    assert.equal(result.timedOut, true);
    assert.equal(result.cancelled, true);
    assert.equal(sink.text(), 'go\n');
  });

  it('cancels through the AbortSignal', async () => {
    const controller = new AbortController();
    const session = pty.start({ command: 'sleep 10', cwd: tmp, timeoutMs: 0, sink: new FakeSink(), signal: controller.signal });
    await sleep(200);
    controller.abort();
    const result = await session.result;
    assert.equal(result.cancelled, true);
    assert.equal(result.timedOut, false);
  });

  it('reports exit codes and signals', async () => {
    assert.equal((await pty.start({ command: 'exit 3', cwd: tmp, timeoutMs: 20_000, sink: new FakeSink() }).result).exitCode, 3);
    const killed = await pty.start({ command: 'kill -9 $$', cwd: tmp, timeoutMs: 20_000, sink: new FakeSink() }).result;
    assert.equal(killed.exitCode, 137);
    assert.equal(killed.signal, 'SIGKILL');
  });

  it('runs with TERM=xterm-256color, without CI/NO_COLOR, and with the neutralising pagers and git settings', async () => {
    const sink = new FakeSink();
    await pty.start({ command: 'echo "$TERM ${CI:-no-ci} ${NO_COLOR:-colour} ${PAGER:-no-pager} $GIT_CONFIG_KEY_0 $MINE"', cwd: tmp, timeoutMs: 20_000, sink, env: { MINE: 'x' } }).result;
    // CI comes from the host when it has one (CI runs with CI=true), unless the sandbox's environment
    // allowlist left it out; the PTY route itself never adds it.
    const [term, ci, ...rest] = sink.text().split(' ');
    assert.equal(term, 'xterm-256color');
    assert.ok(ci === 'no-ci' || ci === process.env.CI, `CI=${ci}`);
    assert.equal(rest.join(' '), `${process.env.NO_COLOR ?? 'colour'} cat core.fsmonitor x\n`);
  });

  it('normalises CR and CRLF into the sink and spills to the artifact', async () => {
    const artifactPath = path.join(tmp, 'pty.log');
    const sink = new OutputSink({ artifactPath, artifactId: '7' });
    const result = await pty.start({ command: "printf 'a\\rb\\nc\\n'; seq 1 30000", cwd: tmp, timeoutMs: 20_000, sink }).result;
    sink.dispose();
    assert.equal(result.exitCode, 0);
    assert.equal(result.summary.artifactId, '7');
    const full = readFileSync(artifactPath, 'utf8');
    assert.ok(!full.includes('\r'));
    assert.ok(full.startsWith('a\nb\nc\n1\n2\n'), JSON.stringify(full.slice(0, 20)));
    assert.ok(full.endsWith('29999\n30000\n'), JSON.stringify(full.slice(-60)));
  });

  it('reports a missing native module as `PTY error: <msg>`', async () => {
    const broken = new NodePtyExecutor({
      loadModule: () => {
        throw new Error("Cannot find module '@lydell/node-pty'");
      },
    });
    const sink = new FakeSink();
    const result = await broken.start({ command: 'echo hi', cwd: tmp, timeoutMs: 20_000, sink }).result;
    assert.equal(result.exitCode, undefined);
    assert.equal(result.cancelled, false);
    assert.equal(sink.text(), "PTY error: Cannot find module '@lydell/node-pty'\n");
  });

  it('CrNormalizer joins a CRLF split across chunks', () => {
    const n = new CrNormalizer();
    assert.equal(n.push('a\r') + n.push('\nb\r') + n.push('c\r\r\n') + n.push('d\r') + n.flush(), 'a\nb\nc\n\nd\n');
  });
});
