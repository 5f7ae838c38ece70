import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildNonInteractiveEnv, GIT_NEUTRAL_CONFIG, NON_INTERACTIVE_ENV } from '../../../src/core/nonInteractiveEnv';
import { withUnsets } from '../../../src/core/envPreflight';
import { applyDirenvPreflight, direnvBudgetMs, direnvStage, findDirenv, mergeDirenv } from '../../../src/exec/direnv';
import { LocalShellExecutor } from '../../../src/exec/localExecutor';
import { FakeSink, processBaseline, waitFor } from './helpers';

describe('exec: nonInteractiveEnv', () => {
  it('contains every §6.5 variable', () => {
    const env = buildNonInteractiveEnv({});
    const expected: Record<string, string> = {
      PAGER: 'cat', GIT_PAGER: 'cat', MANPAGER: 'cat', SYSTEMD_PAGER: 'cat', BAT_PAGER: 'cat', DELTA_PAGER: 'cat',
      GH_PAGER: 'cat', GLAB_PAGER: 'cat', PSQL_PAGER: 'cat', MYSQL_PAGER: 'cat', AWS_PAGER: '', HOMEBREW_PAGER: 'cat',
      LESS: 'FRX', TERM: 'dumb', NO_COLOR: '1', PYTHONUNBUFFERED: '1', GIT_EDITOR: 'true', VISUAL: 'true', EDITOR: 'true',
      GIT_TERMINAL_PROMPT: '0', CI: '1', npm_config_yes: 'true', npm_config_update_notifier: 'false',
      npm_config_fund: 'false', npm_config_audit: 'false', npm_config_progress: 'false',
      PNPM_DISABLE_SELF_UPDATE_CHECK: 'true', PNPM_UPDATE_NOTIFIER: 'false', YARN_ENABLE_TELEMETRY: '0',
      YARN_ENABLE_PROGRESS_BARS: '0', CARGO_TERM_PROGRESS_WHEN: 'never', DEBIAN_FRONTEND: 'noninteractive',
      PIP_NO_INPUT: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', TF_INPUT: '0', TF_IN_AUTOMATION: '1',
      GH_PROMPT_DISABLED: '1', COMPOSER_NO_INTERACTION: '1', CLOUDSDK_CORE_DISABLE_PROMPTS: '1',
    };
    for (const [key, value] of Object.entries(expected)) assert.equal(env[key], value, key);
    assert.match(env.SSH_ASKPASS, /\/false$/);
    assert.equal(env.GIT_ASKPASS, env.SSH_ASKPASS);
    assert.ok(Object.keys(NON_INTERACTIVE_ENV).length >= Object.keys(expected).length);
  });

  it('neutralises git through GIT_CONFIG_COUNT entries', () => {
    const env = buildNonInteractiveEnv({});
    assert.equal(env.GIT_CONFIG_COUNT, String(GIT_NEUTRAL_CONFIG.length));
    const pairs = GIT_NEUTRAL_CONFIG.map((_, i) => `${env[`GIT_CONFIG_KEY_${i}`]}=${env[`GIT_CONFIG_VALUE_${i}`]}`);
    assert.deepEqual(pairs, ['core.fsmonitor=false', 'core.pager=cat', 'core.editor=true', 'sequence.editor=true', 'credential.interactive=false']);
    // Real git reads them.
    const out = execFileSync('git', ['config', '--get', 'core.pager'], { env: { ...env, HOME: os.tmpdir() } }).toString();
    assert.equal(out, 'cat\n');
  });

  it('appends after existing GIT_CONFIG entries instead of clobbering them', () => {
    const env = buildNonInteractiveEnv({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'Someone' });
    assert.equal(env.GIT_CONFIG_COUNT, String(1 + GIT_NEUTRAL_CONFIG.length));
    assert.equal(env.GIT_CONFIG_KEY_0, 'user.name');
    assert.equal(env.GIT_CONFIG_VALUE_0, 'Someone');
    assert.equal(env.GIT_CONFIG_KEY_1, 'core.fsmonitor');
    const fromCaller = buildNonInteractiveEnv({}, { GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'a.b', GIT_CONFIG_VALUE_0: '1', GIT_CONFIG_KEY_1: 'c.d', GIT_CONFIG_VALUE_1: '2' });
    assert.equal(fromCaller.GIT_CONFIG_COUNT, String(2 + GIT_NEUTRAL_CONFIG.length));
    assert.equal(fromCaller.GIT_CONFIG_KEY_1, 'c.d');
    assert.equal(fromCaller.GIT_CONFIG_KEY_2, 'core.fsmonitor');
    const out = execFileSync('git', ['config', '--get', 'user.name'], { env: { ...env, HOME: os.tmpdir() } }).toString();
    assert.equal(out, 'Someone\n');
  });

  it('lets caller overrides win and drops undefined values', () => {
    const env = buildNonInteractiveEnv({ KEEP: 'k', GONE: undefined, PAGER: 'less' }, { PAGER: 'most', EXTRA: 'x' });
    assert.equal(env.KEEP, 'k');
    assert.equal('GONE' in env, false);
    assert.equal(env.PAGER, 'most');
    assert.equal(env.EXTRA, 'x');
  });

  it('adds the UTF-8 groups on Windows only, and only when the user owns none', () => {
    const posix = buildNonInteractiveEnv({}, undefined, 'linux');
    assert.equal(posix.PYTHONUTF8, undefined);
    assert.equal(posix.LC_ALL, undefined);
    const win = buildNonInteractiveEnv({}, undefined, 'win32');
    assert.equal(win.PYTHONIOENCODING, 'utf-8');
    assert.equal(win.PYTHONUTF8, '1');
    assert.equal(win.LANG, 'C.UTF-8');
    assert.equal(win.LC_ALL, 'C.UTF-8');
    const owned = buildNonInteractiveEnv({ lc_ctype: 'de_DE' }, { PYTHONIOENCODING: 'latin-1' }, 'win32');
    assert.equal(owned.LANG, undefined);
    assert.equal(owned.PYTHONUTF8, undefined);
    assert.equal(owned.PYTHONIOENCODING, 'latin-1');
  });
});

describe('exec: direnv preflight', function () {
  this.timeout(20_000);
  let tmp: string;
  let fakeBin: string;
  let marker: string;

  let baseline: ReturnType<typeof processBaseline>;

  before(() => {
    baseline = processBaseline();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-direnv-'));
    fakeBin = path.join(tmp, 'bin');
    marker = path.join(tmp, 'called');
    execFileSync('mkdir', ['-p', fakeBin]);
    // A stand-in with direnv's interface: `direnv export json` prints the diff as JSON.
    writeFileSync(
      path.join(fakeBin, 'direnv'),
      `#!/bin/sh\n[ "$1 $2" = "export json" ] || exit 2\ntouch '${marker}'\nif [ -n "$FAKE_DIRENV_SLEEP" ]; then sleep "$FAKE_DIRENV_SLEEP"; fi\nprintf '{"FROM_DIRENV":"yes","CALLER_WINS":"direnv","DROP_ME":null,"bad-name":null}'\n`,
    );
    chmodSync(path.join(fakeBin, 'direnv'), 0o755);
    // direnv is only asked where it has something to load.
    writeFileSync(path.join(tmp, '.envrc'), '');
  });
  after(async () => {
    rmSync(tmp, { recursive: true, force: true });
    assert.ok(await waitFor(() => baseline.leftSince().length === 0, 3000), JSON.stringify(baseline.leftSince()));
  });

  const baseEnv = (): NodeJS.ProcessEnv => ({ ...process.env, PATH: `${fakeBin}:${process.env.PATH ?? ''}`, DROP_ME: 'present' });

  it('clamps the load budget to a positive timeout', () => {
    assert.equal(direnvBudgetMs(0), 30_000);
    assert.equal(direnvBudgetMs(undefined), 30_000);
    assert.equal(direnvBudgetMs(5_000), 5_000);
    assert.equal(direnvBudgetMs(60_000), 30_000);
  });

  it('merges set values under the caller env and unsets the rest', () => {
    const merged = mergeDirenv({ CALLER_WINS: 'caller', C: 'mine' }, { A: '1', CALLER_WINS: 'direnv', B: null, C: null, 'bad-name': null });
    assert.deepEqual(merged.env, { A: '1', CALLER_WINS: 'caller', C: 'mine' });
    assert.deepEqual(merged.unset, ['B']);
    assert.equal(withUnsets('make', merged.unset), 'unset -v B; make');
    assert.equal(withUnsets('make', ['A', 'bad-name', 'B']), 'unset -v A B; make');
    assert.equal(withUnsets('make', []), 'make');
    assert.equal(withUnsets('make', undefined), 'make');
  });

  for (const mode of ['one-shot', 'persistent'] as const) {
    it(`the direnv stage's env and unsets reach a ${mode} run`, async () => {
      const stage = direnvStage(() => 'auto', baseEnv);
      const pre = await stage({ cwd: tmp, env: { CALLER_WINS: 'caller' }, timeoutMs: 5000 });
      assert.deepEqual(pre.unset, ['DROP_ME']);
      const executor = new LocalShellExecutor({ baseEnv: baseEnv() });
      try {
        const sink = new FakeSink();
        const r = await executor.run({
          command: 'echo "$FROM_DIRENV $CALLER_WINS ${DROP_ME:-gone}"',
          cwd: tmp,
          timeoutMs: 5000,
          env: pre.env,
          unset: pre.unset,
          sessionKey: mode === 'persistent' ? 'direnv-session' : undefined,
          sink,
        });
        assert.equal(r.exitCode, 0);
        assert.equal(sink.text(), 'yes caller gone\n');
      } finally {
        await executor.dispose();
      }
    });
  }

  it('the unsets go in front of the shell prefix (`unset -v …; <prefix> <command>`)', async () => {
    // With the prefix first, `env unset -v DROP_ME` would fail: unset is a builtin, not a program.
    const executor = new LocalShellExecutor({ baseEnv: { ...baseEnv(), AGENT_BASH_SHELL_PREFIX: 'env' } });
    try {
      const sink = new FakeSink();
      const r = await executor.run({ command: 'printenv DROP_ME || echo unset', cwd: tmp, timeoutMs: 5000, unset: ['DROP_ME'], sink });
      assert.equal(sink.text(), 'unset\n');
      assert.equal(r.exitCode, 0);
    } finally {
      await executor.dispose();
    }
  });

  it('the stage reads its mode at each call', async () => {
    let mode: 'auto' | 'off' = 'off';
    const stage = direnvStage(() => mode, baseEnv);
    rmSync(marker, { force: true });
    assert.deepEqual(await stage({ cwd: tmp, env: { A: '1' }, timeoutMs: 0 }), { env: { A: '1' } });
    assert.equal(existsSync(marker), false, 'off: direnv never runs');
    mode = 'auto';
    assert.deepEqual(await stage({ cwd: tmp, timeoutMs: 0 }), { env: { FROM_DIRENV: 'yes', CALLER_WINS: 'direnv' }, unset: ['DROP_ME'] });
    assert.equal(existsSync(marker), true);
  });

  it('does nothing when off', async () => {
    rmSync(marker, { force: true });
    const r = await applyDirenvPreflight({ mode: 'off', cwd: tmp, timeoutMs: 0, direnvPath: path.join(fakeBin, 'direnv') });
    assert.deepEqual(r, { applied: false });
    assert.equal(existsSync(marker), false);
  });

  it('skips cleanly when direnv is not on PATH', async () => {
    assert.equal(findDirenv({ PATH: path.join(tmp, 'nowhere') }), undefined);
    const r = await applyDirenvPreflight({ mode: 'auto', cwd: tmp, timeoutMs: 0, env: { A: '1' }, baseEnv: { PATH: path.join(tmp, 'nowhere') } });
    assert.deepEqual(r, { env: { A: '1' }, applied: false });
  });

  it('is not started where no .envrc or .env is found up the tree and direnv changed nothing yet', async () => {
    const bare = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-no-envrc-'));
    try {
      const fake = path.join(fakeBin, 'direnv');
      const env = baseEnv() as Record<string, string>;
      for (const name of ['DIRENV_DIR', 'DIRENV_DIFF', 'DIRENV_WATCHES']) delete env[name];
      rmSync(marker, { force: true });
      assert.deepEqual(await applyDirenvPreflight({ mode: 'auto', cwd: bare, timeoutMs: 0, baseEnv: env, direnvPath: fake }), { applied: false });
      assert.equal(existsSync(marker), false, 'direnv was started with nothing to load');
      // An environment direnv already loaded is unloaded by it, so it runs.
      const loaded = await applyDirenvPreflight({ mode: 'auto', cwd: bare, timeoutMs: 0, baseEnv: { ...env, DIRENV_DIR: '-/elsewhere' }, direnvPath: fake });
      assert.equal(existsSync(marker), true);
      assert.equal(loaded.applied, true);
      // So does a .env two folders up (direnv may be set to load it).
      rmSync(marker, { force: true });
      mkdirSync(path.join(bare, 'a', 'b'), { recursive: true });
      writeFileSync(path.join(bare, '.env'), 'X=1\n');
      await applyDirenvPreflight({ mode: 'auto', cwd: path.join(bare, 'a', 'b'), timeoutMs: 0, baseEnv: env, direnvPath: fake });
      assert.equal(existsSync(marker), true);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('gives up (and kills direnv) when the load outlasts the timeout', async () => {
    const started = Date.now();
    const r = await applyDirenvPreflight({
      mode: 'auto',
      cwd: tmp,
      timeoutMs: 500,
      baseEnv: { ...(baseEnv() as Record<string, string>), FAKE_DIRENV_SLEEP: '10' },
      direnvPath: path.join(fakeBin, 'direnv'),
    });
    assert.ok(Date.now() - started < 8000, `took ${Date.now() - started} ms: it waited for direnv's 10 s`);
    assert.equal(r.applied, false);
    assert.ok(await waitFor(() => baseline.leftSince().length === 0, 2000));
  });

  it('a cancelled call kills direnv at once', async () => {
    const ac = new AbortController();
    const started = Date.now();
    const pending = applyDirenvPreflight({
      mode: 'auto',
      cwd: tmp,
      timeoutMs: 0,
      baseEnv: { ...(baseEnv() as Record<string, string>), FAKE_DIRENV_SLEEP: '20' },
      direnvPath: path.join(fakeBin, 'direnv'),
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 300);
    const r = await pending;
    assert.deepEqual(r, { applied: false });
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.ok(await waitFor(() => baseline.leftSince().length === 0, 3000), JSON.stringify(baseline.leftSince()));
    const already = new AbortController();
    already.abort();
    rmSync(marker, { force: true });
    const fake = path.join(fakeBin, 'direnv');
    await applyDirenvPreflight({ mode: 'auto', cwd: tmp, timeoutMs: 0, baseEnv: baseEnv() as Record<string, string>, direnvPath: fake, signal: already.signal });
    assert.equal(existsSync(marker), false, 'an aborted call never starts direnv');
  });

  const realDirenv = findDirenv(process.env);
  it(`loads an allowed .envrc with the real direnv${realDirenv ? '' : ' (skipped: direnv not installed)'}`, async function () {
    if (!realDirenv) this.skip();
    const project = path.join(tmp, 'project');
    const data = path.join(tmp, 'xdg');
    execFileSync('mkdir', ['-p', project, data]);
    writeFileSync(path.join(project, '.envrc'), 'export REAL_DIRENV=loaded\n');
    const env = { ...process.env, XDG_DATA_HOME: data, XDG_CONFIG_HOME: data } as Record<string, string>;
    const before = await applyDirenvPreflight({ mode: 'auto', cwd: project, timeoutMs: 0, baseEnv: env });
    assert.equal(before.env?.REAL_DIRENV, undefined, 'an .envrc that was never allowed is not loaded');
    execFileSync(realDirenv as string, ['allow', project], { env, cwd: project });
    const after = await applyDirenvPreflight({ mode: 'auto', cwd: project, timeoutMs: 0, baseEnv: env });
    assert.equal(after.env?.REAL_DIRENV, 'loaded');
  });
});
