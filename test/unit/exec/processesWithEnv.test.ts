import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { killByEnv, pidAlive, processesWithEnv } from '../../../src/exec/processTree';

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
});
