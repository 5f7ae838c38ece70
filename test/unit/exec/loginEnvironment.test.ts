import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecResult } from '../../../src/core/contracts';
import { LocalShellExecutor } from '../../../src/exec/localExecutor';
import { LOGIN_PROFILE_FAILED, LOGIN_PROFILE_TIMEOUT, LoginEnvironment } from '../../../src/exec/loginEnvironment';
import { alive, FakeSink, waitFor } from './helpers';

/** A HOME whose login profile exports a marker, counts its runs and takes a second. */
function slowHome(root: string, body = 'export LOGIN_MARKER=from-profile\nexport PATH="$HOME/bin:$PATH"\necho run >> "$HOME/count"\nsleep 1\n'): string {
  const home = mkdtempSync(path.join(root, 'home-'));
  writeFileSync(path.join(home, '.bash_profile'), body);
  return home;
}

/** The environment of a login shell in `home` (the unit harness turns login shells off; here they are on). */
function loginEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SHELL: '/bin/bash' };
  delete env.AGENT_BASH_NO_LOGIN;
  delete env.LOGIN_MARKER;
  return env;
}

function runs(home: string): number {
  try {
    return readFileSync(path.join(home, 'count'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

describe('exec: the login environment, resolved once', function () {
  this.timeout(60_000);
  let root: string;

  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-login-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  async function call(executor: LocalShellExecutor, command: string, opts: { sessionKey?: string; timeoutMs?: number; cwd: string }): Promise<ExecResult & { sink: FakeSink }> {
    const sink = new FakeSink();
    const result = await executor.run({ command, cwd: opts.cwd, timeoutMs: opts.timeoutMs ?? 20_000, sink, ...(opts.sessionKey ? { sessionKey: opts.sessionKey } : {}) });
    return { ...result, sink };
  }

  it('runs the profile once: every command, a replaced shell and a one-shot run see what it exported', async () => {
    const home = slowHome(root);
    const env = loginEnv(home);
    const login = new LoginEnvironment({ env });
    const executor = new LocalShellExecutor({ baseEnv: env, loginEnv: login });
    try {
      const line = 'echo "$LOGIN_MARKER $(shopt -q login_shell && echo login || echo plain) ${PATH%%:*}"';
      const expected = `from-profile plain ${home}/bin\n`;
      for (let i = 0; i < 3; i++) {
        const r = await call(executor, line, { sessionKey: 'a', cwd: home });
        assert.equal(r.exitCode, 0, r.sink.text());
        assert.equal(r.sink.text(), expected);
      }
      // A timeout replaces the session's shell; the next one starts from the same snapshot.
      const slow = await call(executor, 'sleep 30', { sessionKey: 'a', cwd: home, timeoutMs: 300 });
      assert.equal(slow.timedOut, true);
      const after = await call(executor, line, { sessionKey: 'a', cwd: home });
      assert.equal(after.sink.text(), expected);
      // Another caller's session, and a one-shot run (no session).
      assert.equal((await call(executor, line, { sessionKey: 'b', cwd: home })).sink.text(), expected);
      assert.equal((await call(executor, line, { cwd: home })).sink.text(), expected);
      assert.equal(runs(home), 1);
      assert.equal(login.runs, 1);
    } finally {
      await executor.dispose();
      await login.dispose();
    }
  });

  it('warms a session while the one resolve runs, and its first call waits for it', async () => {
    const home = slowHome(root);
    const env = loginEnv(home);
    const login = new LoginEnvironment({ env });
    const executor = new LocalShellExecutor({ baseEnv: env, loginEnv: login });
    try {
      executor.warm({ sessionKey: 'w', cwd: home });
      const r = await call(executor, 'echo "$LOGIN_MARKER"', { sessionKey: 'w', cwd: home });
      assert.equal(r.sink.text(), 'from-profile\n');
      assert.equal(runs(home), 1);
    } finally {
      await executor.dispose();
      await login.dispose();
    }
  });

  it('bounds a profile that hangs: its group is killed, the command runs with a notice, and the profile is not run again', async () => {
    const home = slowHome(root, 'echo run >> "$HOME/count"\necho $$ > "$HOME/pid"\nsleep 300\nexport LOGIN_MARKER=late\n');
    const env = loginEnv(home);
    const login = new LoginEnvironment({ env, timeoutMs: 500 });
    const executor = new LocalShellExecutor({ baseEnv: env, loginEnv: login });
    try {
      const first = await call(executor, 'echo "ran ${LOGIN_MARKER:-without}"', { sessionKey: 'h', cwd: home });
      assert.equal(first.exitCode, 0);
      assert.equal(first.sink.text(), 'ran without\n');
      assert.equal(first.sink.notice, LOGIN_PROFILE_TIMEOUT('/bin/bash', 500));
      const pid = Number(readFileSync(path.join(home, 'pid'), 'utf8'));
      assert.ok(await waitFor(() => !alive(pid), 5000), `profile ${pid} still runs`);
      // The notice is said once; later shells start from the inherited environment without the profile.
      const second = await call(executor, 'echo "ran ${LOGIN_MARKER:-without}"', { cwd: home });
      assert.equal(second.sink.text(), 'ran without\n');
      assert.equal(second.sink.notice, undefined);
      assert.equal(runs(home), 1);
    } finally {
      await executor.dispose();
      await login.dispose();
    }
  });

  // pyenv's rehash takes a lock file and removes it in an EXIT trap: a profile stopped with SIGKILL
  // leaves the lock, and every later login shell on the machine waits 60 s for it.
  // The waiting `sleep` starts before the lock is taken, so the stop finds the lock held in every case.
  const lockingProfile = 'bash -c \'trap "rm -f \\"$HOME/lock\\"" EXIT; sleep 300 & echo held > "$HOME/lock"; echo > "$HOME/took"; wait\'\nexport LOGIN_MARKER=late\n';

  it('a profile stopped at its timeout gets to run its EXIT traps: the lock it took is released', async () => {
    const home = slowHome(root, lockingProfile);
    const login = new LoginEnvironment({ env: loginEnv(home), timeoutMs: 3000 });
    try {
      const start = await login.start({ shell: '/bin/bash', args: ['-l', '-c'], env: { HOME: home } });
      assert.equal(start.notice, LOGIN_PROFILE_TIMEOUT('/bin/bash', 3000));
      assert.ok(existsSync(path.join(home, 'took')), 'the profile did not take its lock within the timeout');
      assert.ok(await waitFor(() => !existsSync(path.join(home, 'lock')), 10_000), 'the profile\'s lock is left behind');
    } finally {
      await login.dispose();
    }
  });

  it('a profile still running when the window or CLI closes gets to run its EXIT traps too', async () => {
    const home = slowHome(root, lockingProfile);
    const login = new LoginEnvironment({ env: loginEnv(home), timeoutMs: 60_000 });
    const pending = login.start({ shell: '/bin/bash', args: ['-l', '-c'], env: { HOME: home } });
    assert.ok(await waitFor(() => existsSync(path.join(home, 'lock')), 20_000), 'the profile never took its lock');
    await login.dispose();
    assert.equal(existsSync(path.join(home, 'lock')), false, 'the profile\'s lock is left behind');
    await pending.catch(() => undefined);
  });

  it('does not wait for what a profile left running in the background, and ends it', async () => {
    const home = slowHome(root, 'sleep 300 &\necho $! > "$HOME/pid"\nexport LOGIN_MARKER=with-daemon\n');
    const login = new LoginEnvironment({ env: loginEnv(home), timeoutMs: 20_000 });
    try {
      const start = await login.start({ shell: '/bin/bash', args: ['-l', '-c'], env: { HOME: home } });
      assert.equal(start.config.env.LOGIN_MARKER, 'with-daemon');
      assert.equal(start.notice, undefined);
      const pid = Number(readFileSync(path.join(home, 'pid'), 'utf8'));
      assert.ok(await waitFor(() => !alive(pid), 5000), `background ${pid} still runs`);
    } finally {
      await login.dispose();
    }
  });

  it('says when a profile fails, and runs the command anyway', async () => {
    const home = slowHome(root, 'echo "profile broke" >&2\nexit 3\n');
    const env = loginEnv(home);
    const login = new LoginEnvironment({ env });
    const executor = new LocalShellExecutor({ baseEnv: env, loginEnv: login });
    try {
      const r = await call(executor, 'echo ok', { sessionKey: 'f', cwd: home });
      assert.equal(r.sink.text(), 'ok\n');
      assert.equal(r.sink.notice, LOGIN_PROFILE_FAILED('/bin/bash', 'exit status 3: profile broke'));
    } finally {
      await executor.dispose();
      await login.dispose();
    }
  });

  it('a HOME that does not exist is no failure: the profile starts at / and the command runs without a notice', async () => {
    // As the CLI run by a service account: this process's own HOME is the missing folder too.
    const missing = path.join(root, 'never-made');
    const env = loginEnv(missing);
    const ownHome = process.env.HOME;
    process.env.HOME = missing;
    const login = new LoginEnvironment({ env });
    const executor = new LocalShellExecutor({ baseEnv: env, loginEnv: login });
    try {
      const r = await call(executor, 'echo ok', { sessionKey: 'nohome', cwd: root });
      assert.equal(r.sink.text(), 'ok\n');
      assert.equal(r.sink.notice, undefined);
      assert.equal(login.runs, 1);
    } finally {
      process.env.HOME = ownHome;
      await executor.dispose();
      await login.dispose();
    }
  });

  it('resolves again in the background when a profile file changes', async () => {
    const home = slowHome(root);
    const env = loginEnv(home);
    const login = new LoginEnvironment({ env, checkEveryMs: 0 });
    const config = { shell: '/bin/bash', args: ['-l', '-c'], env: { HOME: home } };
    try {
      assert.equal((await login.start(config)).config.env.LOGIN_MARKER, 'from-profile');
      assert.deepEqual((await login.start(config)).config.args, ['-c']);
      writeFileSync(path.join(home, '.bash_profile'), 'export LOGIN_MARKER=changed\necho run >> "$HOME/count"\n');
      // The start that notices the change keeps the old snapshot; the refresh runs behind it.
      assert.equal((await login.start(config)).config.env.LOGIN_MARKER, 'from-profile');
      await login.settled();
      assert.equal((await login.start(config)).config.env.LOGIN_MARKER, 'changed');
      assert.equal(runs(home), 2);
    } finally {
      await login.dispose();
    }
  });

  it('the CLI keeps nothing of the profile on disk: each process runs it once, and a sandboxed command finds no copy of what it exported', () => {
    const token = `tok-${process.pid}-${Date.now()}`;
    const home = slowHome(root, `export LOGIN_SECRET=${token}\necho run >> "$HOME/count"\n`);
    const env = { ...loginEnv(home), XDG_RUNTIME_DIR: path.join(root, 'runtime') };
    mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
    const cli = path.resolve(__dirname, '../../../../dist/cli.js');
    const ws = mkdtempSync(path.join(root, 'ws-'));
    // The second run (a write first: the writable sandbox, which sees /tmp, where the machine has one)
    // looks for the token in the runtime folder and in what the temp folder holds of Agent Bash's.
    const tmp = os.tmpdir();
    const look = `touch looked; grep -rl -- ${token} ${env.XDG_RUNTIME_DIR} ${tmp}/agent-bash-login-* 2>/dev/null || echo none`;
    for (const line of ['true', look]) {
      const r = spawnSync(process.execPath, [cli, 'run', '--yes', '--cwd', ws, '--', line], { env, encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      if (line === look) assert.match(r.stdout, /^none\n/, r.stdout);
    }
    assert.equal(runs(home), 2);
    assert.deepEqual(readdirSync(env.XDG_RUNTIME_DIR), []);
  });

  it('stands in for login shells only: bash, zsh or sh with -l or --login, not on Windows', () => {
    assert.equal(LoginEnvironment.isLogin({ shell: '/bin/bash', args: ['-l', '-c'] }, 'linux'), true);
    assert.equal(LoginEnvironment.isLogin({ shell: '/usr/bin/zsh', args: ['--login', '-c'] }, 'darwin'), true);
    assert.equal(LoginEnvironment.isLogin({ shell: '/bin/bash', args: ['-c'] }, 'linux'), false);
    assert.equal(LoginEnvironment.isLogin({ shell: '/usr/bin/fish', args: ['-l', '-c'] }, 'linux'), false);
    assert.equal(LoginEnvironment.isLogin({ shell: 'C:\\Program Files\\Git\\bin\\bash.exe', args: ['-l', '-c'] }, 'win32'), false);
  });

  it('leaves a shell config without -l as it is', async () => {
    const login = new LoginEnvironment({ env: loginEnv(root) });
    const config = { shell: '/bin/bash', args: ['-c'], env: { A: '1' } };
    assert.equal((await login.start(config)).config, config);
    assert.equal(login.runs, 0);
    await login.dispose();
  });
});
