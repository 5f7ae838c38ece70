// Killing a process group: each process gets one SIGTERM and the grace to act on it. bash takes a
// second SIGTERM before it has handled the first as a hung shell and dies without its EXIT trap, so
// a script's cleanup (pyenv's rehash lock, a temp folder) must see exactly one.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killProcessTree, spawnInGroup } from '../../../src/exec/processTree';
import { waitFor } from './helpers';

describe('exec: killing a process group lets its shells clean up', function () {
  this.timeout(120_000);
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-kill-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  // A shell whose EXIT trap removes its lock, waiting on a child in the same group (as a login
  // profile runs `pyenv rehash`); the lock exists once the trap is set.
  function lockedShell(dir: string) {
    const script = `bash -c 'trap "rm -f lock" EXIT; sleep 300 & echo held > lock; wait'; echo outer-done`;
    return spawnInGroup('/bin/bash', ['-c', script], { cwd: dir, stdio: 'ignore' });
  }

  it('twenty times: the EXIT trap of a shell in the group runs before the group is gone', async () => {
    for (let i = 0; i < 20; i++) {
      const dir = mkdtempSync(path.join(root, 'run-'));
      const child = lockedShell(dir);
      assert.ok(await waitFor(() => existsSync(path.join(dir, 'lock')), 20_000), 'the shell never took its lock');
      await killProcessTree(child, { graceMs: 5000 });
      assert.equal(existsSync(path.join(dir, 'lock')), false, `run ${i}: the lock is left behind`);
    }
  });

  it('a second kill while the first is under way joins it instead of signalling again', async () => {
    for (let i = 0; i < 10; i++) {
      const dir = mkdtempSync(path.join(root, 'again-'));
      const child = lockedShell(dir);
      assert.ok(await waitFor(() => existsSync(path.join(dir, 'lock')), 20_000), 'the shell never took its lock');
      await Promise.all([killProcessTree(child, { graceMs: 5000 }), killProcessTree(child, { graceMs: 5000 })]);
      assert.equal(existsSync(path.join(dir, 'lock')), false, `run ${i}: the lock is left behind`);
    }
  });
});
