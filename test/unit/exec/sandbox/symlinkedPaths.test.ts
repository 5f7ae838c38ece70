// Writable folders reached through a symlink (an allowWrite that is a link, a workspace folder below
// a linked folder, a home that is a link with the package store beneath it) are bound and planned by
// their real paths: commands run there, and the quarantine's confined mover can bind them. Where the
// mover fails anyway, what it should have moved is moved on the host through a descriptor of its
// folder (folderFd.ts): never left live. The host's own `git status` / `git commit` is the judge: a
// planted `core.fsmonitor` or hook would touch a canary outside every writable folder. Real bwrap, bash and git.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { BLOCKED_SUFFIX, confinedMover, quarantineCreated } from '../../../../src/exec/sandbox/mounts/newRepoQuarantine';
import { FakeSink } from '../helpers';

describe('exec/sandbox: writable paths through symlinks', function () {
  this.timeout(120_000);
  let root: string;
  let canary: string;
  const cleanups: Array<() => Promise<void> | void> = [];

  before(function () {
    if (!probeSandbox().sandbox) this.skip();
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-symlinked-'));
    canary = path.join(root, 'outside', 'canary');
    mkdirSync(path.dirname(canary));
  });

  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    rmSync(root, { recursive: true, force: true });
  });

  /** A runtime and a one-shot executor for `ws`; `run` watches each command as the pipeline does. */
  function session(ws: string, home: string, extra: Partial<SandboxSettings> = {}, cacheStore = path.join(root, 'store')) {
    const settings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on', ...extra };
    const runtime = new SandboxRuntime({ settings: () => settings, workspaceRoots: () => [ws], home, cacheStore });
    const executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    cleanups.push(async () => {
      await executor.dispose();
      runtime.dispose();
    });
    return async (command: string): Promise<{ output: string; changed: string[] }> => {
      const watch = runtime.watch();
      const sink = new FakeSink();
      await executor.run({ command, cwd: ws, timeoutMs: 100_000, sink });
      return { output: sink.text(), changed: watch.finish(sink.text()).protectedChanged };
    };
  }

  /** The host's git in `dir` as a person runs it: status, then a commit (hooks run). */
  function hostGit(dir: string, home: string): void {
    const env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    spawnSync('git', ['status', '--short'], { cwd: dir, stdio: 'ignore', env });
    spawnSync('git', ['commit', '-q', '--allow-empty', '-m', 'x'], { cwd: dir, stdio: 'ignore', env });
  }

  /** Shell words: a repository at `dir` whose fsmonitor and pre-commit hook touch the canary. */
  const evilRepo = (dir: string): string =>
    `git init -q ${dir} && printf '#!/bin/sh\\ntouch ${canary}\\n' > ${dir}/.git/hooks/pre-commit && chmod +x ${dir}/.git/hooks/pre-commit && git -C ${dir} config core.fsmonitor "touch ${canary}; false" && echo made`;

  it('an allowWrite that is a symlink: a new repository there has its config and hook moved aside, and the host git runs neither', async () => {
    const ws = path.join(root, 'ws');
    const real = path.join(root, 'realB', 'aw2');
    const link = path.join(root, 'linkB2');
    mkdirSync(ws);
    mkdirSync(real, { recursive: true });
    symlinkSync(real, link);
    const home = path.join(root, 'home');
    const run = session(ws, home, { allowWrite: [link] });
    const r = await run(evilRepo(`${link}/wsub`));
    assert.equal(r.output, 'made\n');
    const git = path.join(real, 'wsub', '.git');
    assert.deepEqual(r.changed.sort(), [
      `${git}/config sets core.fsmonitor (moved aside to ${git}/config${BLOCKED_SUFFIX})`,
      `${git}/hooks/pre-commit is a hook of a new repository (moved aside to ${git}/hooks/pre-commit${BLOCKED_SUFFIX})`,
    ]);
    hostGit(path.join(link, 'wsub'), home);
    assert.equal(existsSync(canary), false, 'the host git ran a sandbox-written fsmonitor or hook');
  });

  it('a home that is a symlink (the package store beneath it): a new repository in the workspace has its config moved aside', async () => {
    const ws = path.join(root, 'ws');
    const homeReal = path.join(root, 'homeRealB');
    const home = path.join(root, 'homeLinkB');
    mkdirSync(ws);
    mkdirSync(path.join(homeReal, '.npm', '_cacache'), { recursive: true });
    symlinkSync(homeReal, home);
    // Where the default store is (sandboxPolicy.ts defaultCacheStore): beneath the linked home.
    const run = session(ws, home, {}, path.join(home, '.local', 'state', 'agent-bash', 'sandbox-caches'));
    const r = await run(evilRepo('wsub'));
    assert.equal(r.output, 'made\n');
    const git = path.join(ws, 'wsub', '.git');
    assert.deepEqual(r.changed.sort(), [
      `${git}/config sets core.fsmonitor (moved aside to ${git}/config${BLOCKED_SUFFIX})`,
      `${git}/hooks/pre-commit is a hook of a new repository (moved aside to ${git}/hooks/pre-commit${BLOCKED_SUFFIX})`,
    ]);
    hostGit(path.join(ws, 'wsub'), home);
    assert.equal(existsSync(canary), false, 'the host git ran a sandbox-written fsmonitor or hook');
  });

  it('the confined mover binds a writable folder given through a symlink by its real path', () => {
    const real = path.join(root, 'real');
    const link = path.join(root, 'link');
    mkdirSync(real);
    symlinkSync(real, link);
    writeFileSync(path.join(real, 'f'), 'x');
    const move = confinedMover(probeSandbox().bwrap as string, [link]);
    assert.deepEqual(move([[path.join(real, 'f'), path.join(real, `f${BLOCKED_SUFFIX}`)]]), [undefined]);
    assert.equal(readFileSync(path.join(real, `f${BLOCKED_SUFFIX}`), 'utf8'), 'x');
  });

  it('when the confined mover fails, the files are moved aside on the host all the same (a taken name gets another)', () => {
    const ws = path.join(root, 'ws');
    mkdirSync(ws);
    const git = path.join(ws, 'r', '.git');
    spawnSync('git', ['init', '-q', path.join(ws, 'r')]);
    spawnSync('git', ['-C', path.join(ws, 'r'), 'config', 'core.fsmonitor', `touch ${canary}`]);
    writeFileSync(path.join(git, 'hooks', 'pre-commit'), `#!/bin/sh\ntouch ${canary}\n`, { mode: 0o755 });
    writeFileSync(path.join(git, `config${BLOCKED_SUFFIX}`), 'taken');
    const lines = quarantineCreated([git], [git], [ws], [ws], (moves) => moves.map(() => 'the confined rename did not happen'));
    assert.deepEqual(lines.sort(), [
      `${git}/config sets core.fsmonitor (moved aside to ${git}/config.2${BLOCKED_SUFFIX})`,
      `${git}/hooks/pre-commit is a hook of a new repository (moved aside to ${git}/hooks/pre-commit${BLOCKED_SUFFIX})`,
    ]);
    assert.equal(readFileSync(path.join(git, `config${BLOCKED_SUFFIX}`), 'utf8'), 'taken');
    assert.equal(existsSync(path.join(git, 'config')), false);
    hostGit(path.join(ws, 'r'), path.join(root, 'home'));
    assert.equal(existsSync(canary), false, 'the host git ran the fsmonitor or hook');
  });

  it('a workspace folder below a symlinked folder: commands run (bound by its real path)', async () => {
    mkdirSync(path.join(root, 'real', 'sub'), { recursive: true });
    symlinkSync(path.join(root, 'real'), path.join(root, 'lk'));
    const ws = path.join(root, 'lk', 'sub');
    const run = session(ws, path.join(root, 'home'));
    assert.equal((await run('echo hi')).output, 'hi\n');
    assert.equal((await run('echo again')).output, 'again\n');
  });

  it('an allowWrite that is a symlink holding a repository: later commands run, and its .git is read-only', async () => {
    const ws = path.join(root, 'ws');
    const real = path.join(root, 'awreal');
    const link = path.join(root, 'aw');
    mkdirSync(ws);
    mkdirSync(real);
    symlinkSync(real, link);
    spawnSync('git', ['init', '-q', path.join(real, 'r')]);
    const config = readFileSync(path.join(real, 'r', '.git', 'config'), 'utf8');
    const run = session(ws, path.join(root, 'home'), { allowWrite: [link] });
    const r = await run(`touch ${link}/ok && git -C ${link}/r config core.fsmonitor x 2>/dev/null; echo later`);
    assert.equal(r.output, 'later\n');
    assert.equal(existsSync(path.join(real, 'ok')), true);
    assert.equal(readFileSync(path.join(real, 'r', '.git', 'config'), 'utf8'), config);
  });
});
