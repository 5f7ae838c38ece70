import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getShellConfig, interactiveFreeArgs, shellKind, shellQuote, SHELL_NOT_FOUND, withPrefix } from '../../../src/exec/shellConfig';

describe('exec: shellConfig', () => {
  it('uses a login shell by default and plain -c when asked not to', () => {
    assert.deepEqual(getShellConfig({ env: { SHELL: '/bin/bash', PATH: '/usr/bin:/bin' } }).args, ['-l', '-c']);
    for (const key of ['AGENT_BASH_NO_LOGIN', 'PI_BASH_NO_LOGIN', 'CLAUDE_BASH_NO_LOGIN']) {
      assert.deepEqual(getShellConfig({ env: { SHELL: '/bin/bash', [key]: '1' } }).args, ['-c'], key);
    }
    assert.deepEqual(getShellConfig({ env: { SHELL: '/bin/bash' }, shellArgs: ['--norc', '-c'] }).args, ['--norc', '-c']);
  });

  it('picks $SHELL when it is bash or zsh, else bash from PATH', () => {
    assert.equal(getShellConfig({ env: { SHELL: '/bin/bash' } }).shell, '/bin/bash');
    const fallback = getShellConfig({ env: { SHELL: '/usr/bin/fish', PATH: '/usr/bin:/bin' } }).shell;
    assert.match(fallback, /\/bash$/);
  });

  it('rejects a configured shell that does not exist', () => {
    assert.throws(() => getShellConfig({ shellPath: '/nonexistent/bash' }), { message: SHELL_NOT_FOUND('/nonexistent/bash') });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-shell-'));
    try {
      const shell = path.join(dir, 'mybash');
      writeFileSync(shell, '#!/bin/sh\n');
      chmodSync(shell, 0o755);
      assert.equal(getShellConfig({ shellPath: shell, env: {} }).shell, shell);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('marks the environment (SHELL, GIT_EDITOR, AGENT_BASH, CI unless opted out)', () => {
    const env = getShellConfig({ env: { SHELL: '/bin/bash', HOME: '/h' } }).env;
    assert.equal(env.SHELL, '/bin/bash');
    assert.equal(env.GIT_EDITOR, 'true');
    assert.equal(env.AGENT_BASH, '1');
    assert.equal(env.CI, 'true');
    assert.equal(env.HOME, '/h');
    assert.equal(getShellConfig({ env: { SHELL: '/bin/bash', PI_BASH_NO_CI: '1' } }).env.CI, undefined);
  });

  it('reads the command prefix', () => {
    assert.equal(getShellConfig({ env: { SHELL: '/bin/bash', PI_SHELL_PREFIX: 'strace -f' } }).prefix, 'strace -f');
    assert.equal(getShellConfig({ env: { SHELL: '/bin/bash' } }).prefix, undefined);
    assert.equal(withPrefix('ls', 'time'), 'time ls');
    assert.equal(withPrefix('ls', undefined), 'ls');
  });

  it('classifies shells and quotes words', () => {
    assert.equal(shellKind('/usr/local/bin/bash5'), 'bash');
    assert.equal(shellKind('/bin/zsh'), 'zsh');
    assert.equal(shellKind('/usr/bin/fish'), 'fish');
    assert.equal(shellKind('/bin/dash'), 'sh');
    assert.equal(shellKind('C:\\Windows\\System32\\cmd.exe'), 'cmd');
    assert.deepEqual(interactiveFreeArgs(['-l', '-c']), ['-l']);
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
  });
});
