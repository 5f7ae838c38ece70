import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bangMessageText, isPersistentShellCdCommand, runBang, wrapForUserShell } from '../../../src/exec/bang';
import { LocalShellExecutor } from '../../../src/exec/localExecutor';

describe('exec: bang commands', function () {
  this.timeout(20_000);
  let tmp: string;

  before(() => {
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bang-')));
    mkdirSync(path.join(tmp, 'sub dir'));
    mkdirSync(path.join(tmp, 'plain'));
    symlinkSync(path.join(tmp, 'plain'), path.join(tmp, 'link'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('runs the command with output, exit code and streaming', async () => {
    const chunks: string[] = [];
    const r = await runBang('echo hi; echo err >&2; exit 4', { cwd: tmp, onChunk: (t) => chunks.push(t), userShell: '/bin/bash' });
    assert.equal(r.command, 'echo hi; echo err >&2; exit 4');
    assert.equal(r.output, 'hi\nerr\n');
    assert.equal(r.exitCode, 4);
    assert.equal(r.cancelled, false);
    assert.equal(r.truncated, false);
    assert.equal(r.newCwd, undefined);
    assert.equal(chunks.join(''), 'hi\nerr\n');
  });

  it('a plain `cd dir` moves the session cwd; other commands do not', async () => {
    const moved = await runBang("cd 'sub dir'", { cwd: tmp, userShell: '/bin/bash' });
    assert.equal(moved.exitCode, 0);
    assert.equal(moved.output, '');
    assert.equal(moved.newCwd, path.join(tmp, 'sub dir'));
    const link = await runBang('cd link', { cwd: tmp, userShell: '/bin/bash' });
    assert.equal(link.newCwd, path.join(tmp, 'link'), 'the symlinked path is kept');
    const back = await runBang('cd -', { cwd: path.join(tmp, 'plain'), previousCwd: tmp, userShell: '/bin/bash' });
    assert.equal(back.newCwd, tmp);
    const home = await runBang('cd', { cwd: tmp, userShell: '/bin/bash' });
    assert.equal(home.newCwd, os.homedir());
    const notMoved = await runBang('cd plain && pwd', { cwd: tmp, userShell: '/bin/bash' });
    assert.equal(notMoved.newCwd, undefined);
    assert.equal(notMoved.output, `${path.join(tmp, 'plain')}\n`);
  });

  it('a failing `cd` reports the error and does not move', async () => {
    const r = await runBang('cd nope', { cwd: tmp, userShell: '/bin/bash' });
    assert.equal(r.exitCode, 1);
    assert.equal(r.newCwd, undefined);
    assert.match(r.output, /cd: nope: No such file or directory\n$/);
  });

  it('classifies standalone cd commands', () => {
    for (const yes of ['cd', 'cd -', 'cd ..', "cd 'a b'", 'cd "x"', '  cd /tmp  ', 'cd ~/src']) assert.equal(isPersistentShellCdCommand(yes), true, yes);
    for (const no of ['cd a && ls', 'cd a; ls', 'cd $(pwd)', 'cd a b', 'cdx', 'cd `x`', 'echo cd']) assert.equal(isPersistentShellCdCommand(no), false, no);
  });

  it('uses the 300 s default through the clamp and times out under a global ceiling', async () => {
    // A shell without the login profile, so the 1 s deadline does not race profile loading.
    const executor = new LocalShellExecutor({ shellArgs: ['-c'] });
    const r = await runBang('echo start; sleep 5', { cwd: tmp, maxTimeout: 1, userShell: '/bin/bash', executor }).finally(() => executor.dispose());
    assert.equal(r.timedOut, true);
    assert.equal(r.cancelled, true);
    assert.equal(r.output, '[Command timed out after 1 seconds]\nstart\n');
  });

  it('cancels through the signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await runBang('sleep 5', { cwd: tmp, signal: controller.signal, userShell: '/bin/bash' });
    assert.equal(r.cancelled, true);
    assert.equal(bangMessageText(r), 'Ran `sleep 5`\n```\n[Command cancelled]\n```\n\n(command cancelled)');
  });

  it("shares the session's persistent shell when given one", async () => {
    const executor = new LocalShellExecutor();
    try {
      await runBang('export BANG_VAR=kept', { cwd: tmp, executor, sessionKey: 's1', userShell: '/bin/bash' });
      const r = await runBang('echo $BANG_VAR', { cwd: tmp, executor, sessionKey: 's1', userShell: '/bin/bash' });
      assert.equal(r.output, 'kept\n');
    } finally {
      await executor.dispose();
    }
  });

  it('wraps zsh and fish lines as the spec says', () => {
    assert.equal(wrapForUserShell("echo 'x'", '/bin/bash'), "echo 'x'");
    assert.equal(wrapForUserShell("echo 'x'", '/usr/bin/zsh'), `'/usr/bin/zsh' -l -i -c 'echo '\\''x'\\'''`);
    assert.equal(wrapForUserShell('ls', '/usr/bin/fish'), `'/usr/bin/fish' -i -c 'ls'`);
  });

  it('formats the conversation message', () => {
    const base = { command: 'ls', cancelled: false, truncated: false, timedOut: false };
    assert.equal(bangMessageText({ ...base, output: '', exitCode: 0 }), 'Ran `ls`\n```\n(no output)\n```');
    assert.equal(bangMessageText({ ...base, output: 'a\n', exitCode: 2 }), 'Ran `ls`\n```\na\n```\n\nCommand exited with code 2');
  });
});
