import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecRequest, ExecResult } from '../../../src/core/contracts';
import { OutputSink } from '../../../src/core/output/outputSink';
import { LocalShellExecutor } from '../../../src/exec/localExecutor';
import { alive, FakeSink, liveDescendants, processBaseline, sleep, waitFor } from './helpers';

let tmp: string;
let executor: LocalShellExecutor;
let keyCounter = 0;

function freshKey(): string {
  keyCounter += 1;
  return `test-session-${keyCounter}`;
}

async function run(command: string, extra: Partial<ExecRequest> = {}): Promise<ExecResult & { sink: FakeSink }> {
  const sink = (extra.sink as FakeSink | undefined) ?? new FakeSink();
  const result = await executor.run({ command, cwd: tmp, timeoutMs: 20_000, ...extra, sink });
  return { ...result, sink };
}

const MODES: Array<{ name: string; key: () => string | undefined }> = [
  { name: 'one-shot', key: () => undefined },
  { name: 'persistent', key: freshKey },
];

describe('exec: LocalShellExecutor', function () {
  this.timeout(30_000);

  let baseline: ReturnType<typeof processBaseline>;

  before(() => {
    baseline = processBaseline();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-exec-'));
    // No login profile: this machine's profile takes up to a second under load, which would turn
    // every deadline below into a race with shell startup. The login default has its own test.
    executor = new LocalShellExecutor({ shellArgs: ['-c'] });
  });

  after(async () => {
    await executor.dispose();
    rmSync(tmp, { recursive: true, force: true });
    const left = await waitFor(() => baseline.leftSince().length === 0, 3000);
    assert.ok(left, `processes left behind: ${JSON.stringify(baseline.leftSince())}`);
  });

  for (const mode of MODES) {
    describe(mode.name, () => {
      it('reports exit codes exactly', async () => {
        const key = mode.key();
        assert.equal((await run('true', { sessionKey: key })).exitCode, 0);
        assert.equal((await run('(exit 42)', { sessionKey: key })).exitCode, 42);
        const failed = await run('echo before; false', { sessionKey: key });
        assert.equal(failed.exitCode, 1);
        assert.equal(failed.sink.text(), 'before\n');
        assert.equal(failed.cancelled, false);
        assert.equal(failed.timedOut, false);
        assert.equal(failed.signal, undefined);
      });

      it('`exit 3` ends the shell with status 3', async () => {
        const key = mode.key();
        const r = await run('echo bye; exit 3', { sessionKey: key });
        assert.equal(r.exitCode, 3);
        assert.equal(r.sink.text(), 'bye\n');
        // The session is replaced, not broken.
        assert.equal((await run('echo again', { sessionKey: key })).sink.text(), 'again\n');
      });

      it('maps a child killed by SIGKILL to 137 and keeps the signal name', async () => {
        const r = await run(`sh -c 'kill -9 $$'`, { sessionKey: mode.key() });
        assert.equal(r.exitCode, 137);
        assert.equal(r.signal, 'SIGKILL');
        const t = await run(`sh -c 'kill -TERM $$'`, { sessionKey: mode.key() });
        assert.equal(t.exitCode, 143);
        assert.equal(t.signal, 'SIGTERM');
      });

      it('merges stdout and stderr in the order written', async () => {
        const r = await run('echo a; echo b >&2; echo c; ls /nonexistent-agent-bash 2>&1 | head -c 3; echo; echo d >&2', {
          sessionKey: mode.key(),
        });
        assert.equal(r.sink.text(), 'a\nb\nc\nls:\nd\n');
      });

      it('closes stdin', async () => {
        const r = await run('cat; echo "cat=$?"; read -r x; echo "read=$?"', { sessionKey: mode.key(), timeoutMs: 5000 });
        assert.equal(r.sink.text(), 'cat=0\nread=1\n');
        assert.equal(r.timedOut, false);
      });

      it('starts every call at its cwd', async () => {
        const key = mode.key();
        assert.equal((await run('cd / && pwd', { sessionKey: key })).sink.text(), '/\n');
        assert.equal((await run('pwd', { sessionKey: key })).sink.text(), `${tmp}\n`);
      });

      it('applies the non-interactive environment and per-call env', async () => {
        const r = await run('echo "$GIT_TERMINAL_PROMPT|$PAGER|$TERM|$DEBIAN_FRONTEND|$MINE"; git config core.pager; git config core.fsmonitor', {
          sessionKey: mode.key(),
          env: { MINE: `it's [x] "y" $HOME` },
        });
        assert.equal(r.sink.text(), `0|cat|dumb|noninteractive|it's [x] "y" $HOME\ncat\nfalse\n`);
      });

      it('times out with the exact notice and no follow-up output', async () => {
        const started = Date.now();
        // 3 s: on a busy machine a 1 s timeout has fired before the session printed `start`.
        const r = await run('echo start; sleep 60; echo never', { sessionKey: mode.key(), timeoutMs: 3000 });
        assert.equal(r.timedOut, true);
        assert.equal(r.cancelled, true);
        assert.equal(r.exitCode, undefined);
        assert.equal(r.sink.notice, 'Command timed out after 3 seconds');
        assert.equal(r.sink.text(), 'start\n');
        assert.equal(r.summary.output, '[Command timed out after 3 seconds]\nstart\n');
        assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms: the sleep was not cut`);
      });

      it('cancels through the AbortSignal', async () => {
        const controller = new AbortController();
        const sink = new FakeSink();
        sink.onPush = () => controller.abort();
        const r = await run('echo start; sleep 5', { sessionKey: mode.key(), signal: controller.signal, sink });
        assert.equal(r.cancelled, true);
        assert.equal(r.timedOut, false);
        assert.equal(r.sink.notice, 'Command cancelled');
        assert.equal(r.sink.text(), 'start\n');
      });

      it('does not start anything when the signal is already aborted', async () => {
        const controller = new AbortController();
        controller.abort();
        const marker = path.join(tmp, `pre-aborted-${mode.name}`);
        const r = await run(`touch ${marker}`, { sessionKey: mode.key(), signal: controller.signal });
        assert.equal(r.cancelled, true);
        assert.equal(r.sink.notice, 'Command cancelled');
        await sleep(200);
        assert.throws(() => statSync(marker));
      });

      it("kills `bash -c 'sleep 100 & sleep 100 & wait'` on timeout with no survivor", async () => {
        const pidFile = path.join(tmp, `pids-${mode.name}`);
        writeFileSync(pidFile, '');
        const r = await run(`echo $$ >> ${pidFile}; bash -c 'sleep 100 & echo $! >> ${pidFile}; sleep 100 & echo $! >> ${pidFile}; wait'`, {
          sessionKey: mode.key(),
          // Long enough for a busy machine to start both sleeps before the timeout fires.
          timeoutMs: 4000,
        });
        assert.equal(r.timedOut, true);
        const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
        assert.equal(pids.length, 3);
        for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} survived`);
      });

      it('returns within 3 s when a background child holds the output pipe', async () => {
        const pidFile = path.join(tmp, `holder-${mode.name}`);
        const started = Date.now();
        const r = await run(`(sleep 30 & echo $! > ${pidFile}); echo done`, { sessionKey: mode.key() });
        const took = Date.now() - started;
        assert.ok(took < 20_000, `took ${took} ms: it waited for the 30 s child`);
        assert.equal(r.exitCode, 0);
        assert.equal(r.sink.text(), 'done\n');
        const pid = Number(readFileSync(pidFile, 'utf8'));
        // Still running until the executor is disposed (checked in the dispose test below).
        assert.equal(alive(pid), true);
      });

      it('passes binary output through byte for byte', async () => {
        const file = path.join(tmp, `random-${mode.name}`);
        const bytes = Buffer.concat([Buffer.from([0, 1, 2, 0xff, 0xfe, 0x0d, 0x0a, 0x1b]), Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256))]);
        writeFileSync(file, bytes);
        const r = await run(`cat ${file}`, { sessionKey: mode.key() });
        assert.equal(r.exitCode, 0);
        assert.equal(r.sink.bytes, bytes.length);
        assert.ok(r.sink.buffer().equals(bytes));
      });

      it('gives `$!` as a real pid', async () => {
        const r = await run('sleep 0.2 & echo $!; wait', { sessionKey: mode.key() });
        const pid = Number(r.sink.text().trim());
        assert.ok(pid > 1, r.sink.text());
      });
    });
  }

  it('runs a login shell by default, one-shot and persistent', async () => {
    // The unit harness sets AGENT_BASH_NO_LOGIN for the whole suite; this test wants the default.
    const baseEnv = { ...process.env };
    delete baseEnv.AGENT_BASH_NO_LOGIN;
    const own = new LocalShellExecutor({ baseEnv });
    try {
      for (const sessionKey of [undefined, 'login']) {
        const sink = new FakeSink();
        const r = await own.run({ command: 'shopt -q login_shell && echo login', cwd: tmp, timeoutMs: 20_000, sessionKey, sink });
        assert.equal(r.exitCode, 0, `${sessionKey ?? 'one-shot'}: ${JSON.stringify(sink.text())} ${JSON.stringify(r)}`);
        assert.equal(sink.text(), 'login\n');
      }
    } finally {
      await own.dispose();
    }
  });

  describe('persistent sessions', () => {
    it('keeps exported variables within a session and isolates sessions', async () => {
      const a = freshKey();
      const b = freshKey();
      assert.equal((await run('export FOO=from-a; BAR=plain', { sessionKey: a })).exitCode, 0);
      assert.equal((await run('echo "${FOO:-unset} ${BAR:-unset}"', { sessionKey: a })).sink.text(), 'from-a plain\n');
      assert.equal((await run('echo "${FOO:-unset}"', { sessionKey: b })).sink.text(), 'unset\n');
      assert.equal((await run('echo "${FOO:-unset}"')).sink.text(), 'unset\n');
    });

    it('warm starts the session\'s shell ahead of its first call, which then runs in it; a second warm starts nothing', async () => {
      const key = freshKey();
      const before = new Set(liveDescendants().map((p) => p.pid));
      const count = executor.sessionCount;
      executor.warm({ sessionKey: key, cwd: tmp });
      executor.warm({ sessionKey: key, cwd: tmp });
      assert.equal(executor.sessionCount, count + 1);
      const started = liveDescendants().filter((p) => !before.has(p.pid) && p.comm === 'bash' && p.ppid === process.pid);
      assert.equal(started.length, 1, JSON.stringify(started));
      const first = await run('echo $$', { sessionKey: key });
      assert.equal(Number(first.sink.text()), started[0].pid);
      assert.equal(executor.sessionCount, count + 1);
      // An async job's key never gets a persistent shell, so nothing is warmed for it.
      executor.warm({ sessionKey: `${key}:async:1`, cwd: tmp });
      assert.equal(executor.sessionCount, count + 1);
    });

    it('drops functions and aliases between calls (sessionReset.ts), keeps plain variables', async () => {
      const key = freshKey();
      await run('greet() { echo "hi $1"; }; alias ll="echo aliased"; shopt -s expand_aliases; V=plain', { sessionKey: key });
      const next = await run('type -t greet ll || echo "gone $V"', { sessionKey: key });
      assert.equal(next.sink.text(), 'gone plain\n');
    });

    it('scopes per-call env to its call', async () => {
      const key = freshKey();
      await run('export KEEP=session', { sessionKey: key });
      assert.equal((await run('echo "$KEEP $ONLY"', { sessionKey: key, env: { KEEP: 'call', ONLY: 'once' } })).sink.text(), 'call once\n');
      assert.equal((await run('echo "$KEEP ${ONLY:-unset}"', { sessionKey: key })).sink.text(), 'session unset\n');
    });

    it('discards a session after a timeout (quarantine) and starts a clean one', async () => {
      const key = freshKey();
      await run('export STATE=kept', { sessionKey: key });
      const shellPid = Number((await run('echo $$', { sessionKey: key })).sink.text());
      const t = await run('sleep 5', { sessionKey: key, timeoutMs: 1000 });
      assert.equal(t.timedOut, true);
      assert.equal(alive(shellPid), false);
      const after = await run('echo "${STATE:-unset} $$"', { sessionKey: key });
      const [state, pid] = after.sink.text().trim().split(' ');
      assert.equal(state, 'unset');
      assert.notEqual(Number(pid), shellPid);
    });

    it('discards a session after an abort (exported variable gone)', async () => {
      const key = freshKey();
      await run('export STATE=kept', { sessionKey: key });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      assert.equal((await run('sleep 5', { sessionKey: key, signal: controller.signal })).cancelled, true);
      assert.equal((await run('echo "${STATE:-unset}"', { sessionKey: key })).sink.text(), 'unset\n');
    });

    it('runs an overlapping call in a one-shot shell, concurrently', async () => {
      const key = freshKey();
      await run('export OWNER=yes', { sessionKey: key });
      const order: string[] = [];
      const slow = run('sleep 1; echo "slow $OWNER"', { sessionKey: key }).then((r) => {
        order.push('slow');
        return r;
      });
      await sleep(100);
      const fast = await run('echo "fast ${OWNER:-none}"', { sessionKey: key });
      order.push('fast');
      const slowResult = await slow;
      assert.deepEqual(order, ['fast', 'slow']);
      assert.equal(fast.sink.text(), 'fast none\n');
      assert.equal(slowResult.sink.text(), 'slow yes\n');
    });

    it("an overlapping call's timeout leaves the owner's session usable", async () => {
      const key = freshKey();
      await run('export OWNER=yes', { sessionKey: key });
      const slow = run('sleep 1.5; echo "slow $OWNER"', { sessionKey: key });
      await sleep(100);
      const overlapping = await run('sleep 5', { sessionKey: key, timeoutMs: 1000 });
      assert.equal(overlapping.timedOut, true);
      assert.equal((await slow).sink.text(), 'slow yes\n');
      assert.equal((await run('echo "$OWNER"', { sessionKey: key })).sink.text(), 'yes\n');
    });

    it('cannot be fooled by output that imitates the end-of-command marker', async () => {
      const key = freshKey();
      const fake = '0123456789abcdef0123456789abcdef';
      const spoof = [
        `printf '%s 0\\n' ${fake}`,
        `printf '%s' ${fake}`,
        `printf '\\n%s 0\\n%s' $(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \\n') ${fake}`,
        `echo "${fake} 0" >&3`,
        `for fd in 10 11 12 255; do { echo "${fake} 0" >&$fd; } 2>/dev/null; done`,
        'echo after',
        '(exit 5)',
      ].join('; ');
      const r = await run(spoof, { sessionKey: key });
      assert.equal(r.exitCode, 5);
      const text = r.sink.text();
      assert.ok(text.startsWith(`${fake} 0\n${fake}\n`), JSON.stringify(text));
      assert.ok(text.includes('Bad file descriptor'), JSON.stringify(text));
      assert.ok(text.endsWith('after\n'), JSON.stringify(text));
      assert.equal((await run('echo next', { sessionKey: key })).sink.text(), 'next\n');
    });

    it('survives `exec >/dev/null`, `exec </dev/zero` and a syntax error', async () => {
      const key = freshKey();
      await run('exec >/dev/null 2>&1 </dev/zero', { sessionKey: key });
      assert.equal((await run('echo visible', { sessionKey: key })).sink.text(), 'visible\n');
      const bad = await run('if then fi (', { sessionKey: key });
      assert.equal(bad.exitCode, 2);
      assert.match(bad.sink.text(), /syntax error/);
      assert.equal((await run('echo still', { sessionKey: key })).sink.text(), 'still\n');
    });

    it('reuses one shell for a session (no respawn per call)', async () => {
      const key = freshKey();
      const a = (await run('echo $$', { sessionKey: key })).sink.text();
      const b = (await run('echo $$', { sessionKey: key })).sink.text();
      assert.equal(a, b);
    });
  });

  it('streams 100 MB through the real OutputSink with bounded memory and every byte in the artifact', async function () {
    this.timeout(60_000);
    const artifactPath = path.join(tmp, 'big.log');
    const sink = new OutputSink({ artifactPath, artifactId: '1' });
    const total = 100_000_000;
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const result = await executor.run({
      command: `yes '${'a'.repeat(99)}' | head -c ${total}`,
      cwd: tmp,
      timeoutMs: 60_000,
      sessionKey: freshKey(),
      sink,
    });
    clearInterval(sampler);
    sink.dispose();
    assert.equal(result.exitCode, 0);
    assert.equal(result.summary.totalBytes, total);
    assert.ok(result.summary.totalLines >= total / 100, `totalLines ${result.summary.totalLines}`);
    assert.equal(result.summary.truncated, true);
    // The in-memory budget (50 KiB) plus the elision marker.
    assert.ok(result.summary.outputBytes <= 51_200 + 64, `outputBytes ${result.summary.outputBytes}`);
    assert.equal(statSync(artifactPath).size, total);
    const growth = (peak - before) / 1e6;
    assert.ok(growth < 200, `RSS grew ${growth.toFixed(0)} MB`);
  });

  it('kills lingering background children on dispose', async () => {
    const own = new LocalShellExecutor();
    const pidFile = path.join(tmp, 'linger');
    const pidFile2 = path.join(tmp, 'linger2');
    await own.run({ command: `(sleep 30 & echo $! > ${pidFile}); echo done`, cwd: tmp, timeoutMs: 5000, sink: new FakeSink() });
    await own.run({
      command: `sleep 30 & echo $! > ${pidFile2}`,
      cwd: tmp,
      timeoutMs: 5000,
      sessionKey: 'linger',
      sink: new FakeSink(),
    });
    const pids = [pidFile, pidFile2].map((f) => Number(readFileSync(f, 'utf8')));
    for (const pid of pids) assert.equal(alive(pid), true);
    await own.dispose();
    for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} survived dispose`);
  });
});
