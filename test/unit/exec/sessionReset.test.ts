// Session state cannot change what a later command means: after each poisoning form, the next call's
// `ls`/`echo` is the real one, and what is promised to carry (plain and exported ordinary variables)
// does.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecResult } from '../../../src/core/contracts';
import { LocalShellExecutor } from '../../../src/exec/localExecutor';
import { sessionReplacedNotice } from '../../../src/exec/persistentShell';
import { FakeSink, processBaseline, waitFor } from './helpers';
import { makeEvil, POISON_CASES } from './poisonCases';

describe('exec: the persistent session is reset before each call (sessionReset.ts)', function () {
  this.timeout(120_000);
  let tmp: string;
  let evil: string;
  let executor: LocalShellExecutor;
  let baseline: ReturnType<typeof processBaseline>;
  let keys = 0;
  let freshOptions = '';
  let gitCount = '';

  async function run(command: string, sessionKey: string): Promise<ExecResult & { sink: FakeSink }> {
    const sink = new FakeSink();
    const result = await executor.run({ command, cwd: tmp, timeoutMs: 30_000, sessionKey, sink });
    return { ...result, sink };
  }

  before(async () => {
    baseline = processBaseline();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-reset-'));
    evil = makeEvil(tmp);
    executor = new LocalShellExecutor({ shellArgs: ['-c'] });
    const probe = POISON_CASES.find((c) => c.expected === 'FRESH_OPTIONS')?.probe ?? '';
    freshOptions = (await run(probe, 'fresh-options')).sink.text();
    gitCount = (await run('echo "$GIT_CONFIG_COUNT"', 'fresh-git')).sink.text().trim();
    assert.match(gitCount, /^\d+$/);
  });

  after(async () => {
    await executor.dispose();
    rmSync(tmp, { recursive: true, force: true });
    assert.ok(await waitFor(() => baseline.leftSince().length === 0, 5000), JSON.stringify(baseline.leftSince()));
  });

  for (const c of POISON_CASES) {
    it(`${c.name}: \`${c.poison}\` does not reach the next call`, async () => {
      keys += 1;
      const key = `reset-${keys}`;
      assert.equal((await run('X=kept; export E=exported', key)).exitCode, 0);
      const first = await run(c.poison.replaceAll('EVIL', evil), key);
      assert.equal(first.sink.notice, undefined, first.sink.text());
      const probe = await run(c.probe.replaceAll('EVIL', evil), key);
      const expected = c.expected === 'FRESH_OPTIONS' ? freshOptions : c.expected.replace('GIT_COUNT', gitCount);
      assert.equal(probe.sink.text(), expected);
      assert.equal(existsSync(path.join(tmp, 'POISONED')), false, 'a line of the probe\'s quoted text ran as a command');
      assert.equal(probe.sink.notice, c.notice);
      // Then the session answers plainly, with what carries (the replaced one has lost it).
      const third = await run('echo "$X $E"; ls -d .', key);
      assert.equal(third.sink.text(), c.notice ? ' \n.\n' : 'kept exported\n.\n');
      assert.equal(third.sink.notice, undefined);
    });
  }

  it('lists what to drop through a scratch descriptor the command does not have: a child of the call holds stdin, stdout and stderr only', async () => {
    const r = await run('echo "$__agent_bash_listok0 ${__agent_bash_listfd0//[0-9]/d}"; [[ -e /proc/$$/fd/$__agent_bash_listfd0 ]] || echo closed; ls /proc/self/fd | tr "\\n" " "', 'reset-scratch');
    // `3` is `ls`'s own listing of the directory.
    assert.equal(r.sink.text(), `1 dd\nclosed\n0 1 2 3 `);
  });

  it('umask, descriptors above 2, jobs and coprocesses start as the shell started; changed limits replace the shell', async () => {
    const key = 'reset-process-state';
    const canary = path.join(tmp, 'fd4.canary');
    assert.equal((await run(`umask 777; exec 4>'${canary}' 7</dev/null; coproc sleep 600; sleep 601 & echo started`, key)).sink.text(), 'started\n');
    // The listing goes to a file, not a pipe: a pipeline's two ends are the shell's own descriptors
    // until it has started both sides, so `ls … | tr` could see them (3 and 4) now and then.
    const r = await run('umask; ls /proc/$$/fd > fds.txt; tr "\\n" " " < fds.txt; echo "[${COPROC_PID-}]"; jobs; wait; echo 2>/dev/null >&4 || echo "no fd 4"', key);
    // The group's saved copies (fds 11-15 here) are the wrapper's, inside the call only.
    assert.match(r.sink.text(), /^0022\n0 1 (1\d )+2 \[\]\nno fd 4\n$/);
    assert.equal(r.sink.notice, undefined);
    assert.equal((await run('ulimit -S -n 256; echo lowered', key)).sink.text(), 'lowered\n');
    const after = await run('ulimit -S -n', key);
    assert.notEqual(after.sink.text(), '256\n');
    assert.equal(after.sink.notice, sessionReplacedNotice('reset'));
  });

  it('carries plain and exported ordinary variables and per-call cwd, and restores sensitive ones to their start values', async () => {
    const key = 'reset-carry';
    await run('A=plain; export B=exported; export GIT_DIR=/x; HOME=/nowhere; unset TMPDIR LANG; declare -x C=1', key);
    const r = await run('echo "$A $B $C [${GIT_DIR-}] $HOME"; env | grep -c "^B=exported$"', key);
    assert.equal(r.sink.text(), `plain exported 1 [] ${process.env.HOME ?? ''}\n1\n`);
  });

  it('with hundreds of variables in the environment, a sensitive one set by a call is gone and the probe of the filter is gone before the command', async () => {
    // The sensitive names are picked out by bash's own filter; its probe variable must never show.
    const baseEnv: NodeJS.ProcessEnv = { ...process.env };
    for (let i = 0; i < 300; i++) baseEnv[`AB_TEST_FILLER_${i}`] = `value ${i}`;
    const big = new LocalShellExecutor({ shellArgs: ['-c'], baseEnv });
    const call = async (command: string): Promise<string> => {
      const sink = new FakeSink();
      const r = await big.run({ command, cwd: tmp, timeoutMs: 30_000, sessionKey: 'reset-big-env', sink });
      assert.equal(r.exitCode, 0, sink.text());
      assert.equal(sink.notice, undefined, sink.text());
      return sink.text();
    };
    try {
      await call('export MY_TOOL_PATH=/evil LD_PRELOAD=/evil.so NPM_CONFIG_PREFIX=/evil AB_TEST_FILLER_7=changed; PS4=evil; kept=1');
      assert.equal(
        await call('echo "[${MY_TOOL_PATH-}] [${LD_PRELOAD-}] [${NPM_CONFIG_PREFIX-}] [${PS4}] $AB_TEST_FILLER_7 $AB_TEST_FILLER_299 $kept"; compgen -v | grep -c "^__agent_bash_rprobe" || true'),
        '[] [] [] [+ ] changed value 299 1\n0\n',
      );
    } finally {
      await big.dispose();
    }
  });
});
