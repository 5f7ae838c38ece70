import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { MarkSweeper } from '../../../src/exec/markSweeper';
import { killByEnv, killByMarks, pidAlive, processesWithAnyEnv, processesWithEnv, type EnvMark } from '../../../src/exec/processTree';
import { waitFor } from './helpers';

describe('exec: processes found by their environment mark', () => {
  it('finds an orphan that left its group and parent, and kills it', async () => {
    const mark = `t${process.pid}x${Date.now()}`;
    // The shell starts `sleep` in a new session and exits at once: sleep is re-parented to init.
    const shell = spawn('/bin/bash', ['-c', 'setsid sleep 300 < /dev/null > /dev/null 2>&1 & echo $!'], {
      env: { ...process.env, AGENT_BASH_TEST_MARK: mark },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    shell.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    await new Promise((r) => shell.once('close', r));
    const orphan = Number(out.trim());
    assert.ok(pidAlive(orphan), 'the orphan should be running');
    // Its environment is readable once it has become `sleep` (mid-exec, /proc shows none).
    for (let i = 0; i < 100 && !readFileSync(`/proc/${orphan}/cmdline`, 'utf8').startsWith('sleep'); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(processesWithEnv('AGENT_BASH_TEST_MARK', mark), [orphan]);
    assert.deepEqual(processesWithEnv('AGENT_BASH_TEST_MARK', `${mark}-other`), []);
    assert.deepEqual(killByEnv('AGENT_BASH_TEST_MARK', mark), [orphan]);
    for (let i = 0; i < 50 && pidAlive(orphan); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(pidAlive(orphan), false);
    assert.deepEqual(processesWithEnv('AGENT_BASH_TEST_MARK', mark), []);
  });

  it('does not match a value that only starts with the mark', async () => {
    const mark = `p${process.pid}y${Date.now()}`;
    const child = spawn('sleep', ['5'], { env: { ...process.env, AGENT_BASH_TEST_MARK: `${mark}0` }, stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(processesWithEnv('AGENT_BASH_TEST_MARK', mark), []);
      assert.deepEqual(processesWithEnv('AGENT_BASH_TEST_MARK', `${mark}0`), [child.pid]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  /** A `sleep 300` whose environment carries AGENT_BASH_TEST_MARK=`value`, once it has exec'd. */
  async function markedSleep(value: string): Promise<number> {
    const child = spawn('sleep', ['300'], { env: { ...process.env, AGENT_BASH_TEST_MARK: value }, stdio: 'ignore', detached: true });
    child.unref();
    const pid = child.pid as number;
    assert.ok(await waitFor(() => processesWithEnv('AGENT_BASH_TEST_MARK', value).includes(pid), 5000), `sleep ${pid} should carry ${value}`);
    return pid;
  }

  it('one pass finds and kills the processes of several marks, and only theirs', async () => {
    const base = `m${process.pid}z${Date.now()}`;
    const [a, b, other] = [await markedSleep(`${base}a`), await markedSleep(`${base}b`), await markedSleep(`${base}c`)];
    try {
      const marks: EnvMark[] = [{ name: 'AGENT_BASH_TEST_MARK', value: `${base}a` }, { name: 'AGENT_BASH_TEST_MARK', value: `${base}b` }];
      assert.deepEqual(processesWithAnyEnv(marks).sort(), [a, b].sort());
      assert.deepEqual(processesWithAnyEnv([]), []);
      assert.deepEqual(killByMarks(marks).sort(), [a, b].sort());
      assert.ok(await waitFor(() => !pidAlive(a) && !pidAlive(b), 5000), 'both marked sleeps should be gone');
      assert.equal(pidAlive(other), true, 'the sleep of another mark must live');
    } finally {
      for (const pid of [a, b, other]) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('the sweeper kills what released commands left in one pass, after they stop coming', async () => {
    const base = `s${process.pid}w${Date.now()}`;
    const passes: EnvMark[][] = [];
    const sweeper = new MarkSweeper(30, 10_000, (marks) => {
      passes.push([...marks]);
      return killByMarks(marks);
    });
    const [a, b] = [await markedSleep(`${base}a`), await markedSleep(`${base}b`)];
    try {
      sweeper.sweep({ name: 'AGENT_BASH_TEST_MARK', value: `${base}a` });
      sweeper.sweep({ name: 'AGENT_BASH_TEST_MARK', value: `${base}b` });
      sweeper.sweep({ name: 'AGENT_BASH_TEST_MARK', value: `${base}a` });
      assert.equal(passes.length, 0, 'no pass while releases keep coming');
      assert.ok(await waitFor(() => !pidAlive(a) && !pidAlive(b), 5000), 'both sleeps should be gone');
      assert.deepEqual(passes.map((p) => p.map((m) => m.value)), [[`${base}a`, `${base}b`]]);
      assert.deepEqual(sweeper.flush(), [], 'nothing is left pending');
    } finally {
      sweeper.cancel();
      for (const pid of [a, b]) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('the sweeper sweeps at its deadline even while releases keep coming, and at once on flush', async () => {
    const base = `d${process.pid}v${Date.now()}`;
    let passes = 0;
    const sweeper = new MarkSweeper(60_000, 100, (marks) => {
      passes++;
      return killByMarks(marks);
    });
    const a = await markedSleep(`${base}a`);
    try {
      sweeper.sweep({ name: 'AGENT_BASH_TEST_MARK', value: `${base}a` });
      assert.ok(await waitFor(() => !pidAlive(a), 5000), 'the deadline pass should kill it');
      assert.equal(passes, 1);
      const b = await markedSleep(`${base}b`);
      sweeper.sweep({ name: 'AGENT_BASH_TEST_MARK', value: `${base}b` });
      assert.deepEqual(sweeper.flush(), [b]);
      assert.equal(passes, 2);
    } finally {
      sweeper.cancel();
    }
  });
});
