// Git directories the host's git finds without a `.git` entry, and the paths a host git config
// names that a command claims first. Each case is judged by the host: its own `git status` or
// `git commit` must not run what a sandboxed command wrote (a marker file outside every writable
// folder says whether it did). Real bwrap, bash and git.
//   - a folder git takes as a repository by itself (HEAD, refs/, objects/: a bare repository, or a
//     worktree's git dir: HEAD and commondir), made or changed by a command, or there before;
//   - a path a git config names as a program, claimed with an empty folder before the file comes;
//   - a `.git` pointer into the sandbox's own package store (writable, outliving the command);
//   - a linked worktree's common dir (where hooks come from), in later commands.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { FakeSink } from '../../exec/helpers';

describe('exec/sandbox: git dirs without a .git entry, and paths a git config names', function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;
  let home: string;
  let store: string;
  let marker: string;
  let runtime: SandboxRuntime;
  let executor: LocalShellExecutor;
  const settings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };
  const hostEnv = (): NodeJS.ProcessEnv => ({
    ...process.env,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'n',
    GIT_AUTHOR_EMAIL: 'a@b.c',
    GIT_COMMITTER_NAME: 'n',
    GIT_COMMITTER_EMAIL: 'a@b.c',
  });
  const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', env: hostEnv() });

  before(function () {
    if (!probeSandbox().sandbox) this.skip();
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-gitdirs-'));
    ws = path.join(root, 'ws');
    home = path.join(root, 'home');
    store = path.join(root, 'store');
    marker = path.join(root, 'outside', 'marker');
    mkdirSync(ws);
    mkdirSync(path.join(home, '.npm', '_cacache'), { recursive: true });
    mkdirSync(path.dirname(marker));
    runtime = new SandboxRuntime({ settings: () => settings, workspaceRoots: () => [ws], home, cacheStore: store });
    executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
  });

  afterEach(async () => {
    await executor.dispose();
    runtime.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  async function run(command: string): Promise<{ output: string; changed: string[] }> {
    const watch = runtime.watch();
    const sink = new FakeSink();
    await executor.run({ command, cwd: ws, timeoutMs: 100_000, sink });
    return { output: sink.text(), changed: watch.finish(sink.text()).protectedChanged };
  }

  /** The host's git in `dir` (status, or the arguments given), as VS Code's Git extension runs it. */
  function hostGit(dir: string, ...args: string[]): void {
    spawnSync('git', args.length > 0 ? args : ['status', '--short'], { cwd: dir, stdio: 'ignore', env: hostEnv() });
  }

  /** A shell line that writes an executable script at `file` (shell words) that appends to the marker. */
  const script = (file: string): string => `printf '#!/bin/sh\\necho PWNED >> ${marker}\\n' > ${file} && chmod +x ${file}`;
  /** A config (at `file`, shell words) that makes the folder a repository whose work tree is itself, running an fsmonitor. */
  const bareConfig = (file: string): string =>
    `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = "echo PWNED >> ${marker}; false"\\n' > ${file}`;
  const bareShape = 'mkdir -p objects refs/heads && echo "ref: refs/heads/main" > HEAD';

  describe('a folder git takes as a repository by itself (no .git entry)', () => {
    it('made at the workspace root: its config is moved aside (and a protected file made with it), and the host git status runs nothing', async () => {
      // With a protected file in the same command: the new git dir (the workspace folder) does not hide it.
      const r = await run(`${bareShape} && ${bareConfig('config')} && echo '{}' > .mcp.json && echo made`);
      assert.equal(r.output, 'made\n');
      assert.equal(existsSync(path.join(ws, 'config')), false, r.changed.join('\n'));
      assert.equal(existsSync(path.join(ws, '.mcp.json')), false, r.changed.join('\n'));
      assert.match(readFileSync(path.join(ws, 'config.agent-bash-blocked'), 'utf8'), /fsmonitor/);
      assert.ok(r.changed.some((l) => l.startsWith(`${path.join(ws, 'config')} sets core.fsmonitor`)), r.changed.join('\n'));
      hostGit(ws);
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });

    it('made in a subfolder of a repository, config first and the repository shape in a later command: the config is moved aside', async () => {
      git(ws, 'init', '-q');
      const first = await run(`mkdir pkg && cd pkg && ${bareConfig('config')} && echo made`);
      assert.equal(first.output, 'made\n');
      const r = await run(`cd pkg && ${bareShape} && echo shaped`);
      assert.equal(r.output, 'shaped\n');
      assert.equal(existsSync(path.join(ws, 'pkg', 'config')), false, r.changed.join('\n'));
      hostGit(path.join(ws, 'pkg'));
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });

    it('a worktree git dir (HEAD and commondir, no refs of its own) is one too: what its commondir leads to is checked', async () => {
      // The common dir has no HEAD: only through the worktree git dir is it a repository.
      const r = await run(
        `git init -q --bare c && git --git-dir=c config core.fsmonitor "echo PWNED >> ${marker}; false" && rm c/HEAD && mkdir -p w wt && echo "ref: refs/heads/main" > w/HEAD && echo ../c > w/commondir && echo "gitdir: $PWD/w" > wt/.git && echo made`,
      );
      assert.equal(r.output, 'made\n');
      assert.equal(existsSync(path.join(ws, 'c', 'config')), false, r.changed.join('\n'));
      hostGit(path.join(ws, 'wt'));
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });

    it('there before the command: its config, hooks and a config it lacked cannot be planted', async () => {
      mkdirSync(path.join(ws, 'pkg', 'objects'), { recursive: true });
      mkdirSync(path.join(ws, 'pkg', 'refs', 'heads'), { recursive: true });
      writeFileSync(path.join(ws, 'pkg', 'HEAD'), 'ref: refs/heads/main\n');
      const r = await run(`cd pkg && ${bareConfig('config')}; mkdir -p hooks; ${script('hooks/post-checkout')}; echo done`);
      assert.equal(r.output.endsWith('done\n'), true, r.output);
      assert.equal(existsSync(path.join(ws, 'pkg', 'config')), false, r.changed.join('\n'));
      assert.equal(existsSync(path.join(ws, 'pkg', 'hooks', 'post-checkout')), false, r.changed.join('\n'));
      // Now with a harmless config: read-only from the next command on.
      git(path.join(ws, 'pkg'), 'config', '--file', 'config', 'core.bare', 'true');
      const second = await run(`cd pkg && ${bareConfig('config')} && echo written`);
      assert.notEqual(second.output, 'written\n');
      assert.equal(readFileSync(path.join(ws, 'pkg', 'config'), 'utf8').includes('fsmonitor'), false);
      hostGit(path.join(ws, 'pkg'));
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });
  });

  describe('a path a git config names as a program', () => {
    beforeEach(() => {
      git(ws, 'init', '-q');
      git(ws, 'config', 'core.fsmonitor', 'tools/fsmon.sh');
    });

    it('claimed with an empty folder first: the folder is moved aside, and the script never comes', async () => {
      const first = await run('mkdir -p tools/fsmon.sh && echo claimed');
      assert.equal(first.output, 'claimed\n');
      assert.equal(existsSync(path.join(ws, 'tools', 'fsmon.sh')), false, first.changed.join('\n'));
      assert.ok(first.changed.some((l) => l.startsWith(`${path.join(ws, 'tools', 'fsmon.sh')} is named by a git config`)), first.changed.join('\n'));
      const second = await run(`rmdir tools/fsmon.sh; ${script('tools/fsmon.sh')}; echo done`);
      assert.equal(existsSync(path.join(ws, 'tools', 'fsmon.sh')), false, second.output + second.changed.join('\n'));
      hostGit(ws);
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });

    it('a folder there before (the person\'s, or left by an older command) cannot be swapped for a script', async () => {
      mkdirSync(path.join(ws, 'tools', 'fsmon.sh'), { recursive: true });
      const r = await run(`rmdir tools/fsmon.sh; mv tools tools2; ${script('tools/fsmon.sh')}; echo done`);
      assert.equal(r.output.endsWith('done\n'), true, r.output);
      assert.equal(lstatKind(path.join(ws, 'tools', 'fsmon.sh')), 'dir', r.changed.join('\n'));
      hostGit(ws);
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });

    it('made through a symlinked folder the command made on the way: that symlink is moved aside', async () => {
      const r = await run(`mkdir x && ln -s x tools && ${script('x/fsmon.sh')} && echo made`);
      assert.equal(r.output, 'made\n');
      assert.equal(existsSync(path.join(ws, 'tools')), false, r.changed.join('\n'));
      assert.ok(r.changed.includes(`${path.join(ws, 'tools')} leads to ${path.join(ws, 'tools', 'fsmon.sh')}, which is named by a git config as code or config git runs or reads (moved aside to ${path.join(ws, 'tools')}.agent-bash-blocked)`), r.changed.join('\n'));
      hostGit(ws);
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });

    it('a symlink there is watched: replaced by a script, the script is moved aside', async () => {
      mkdirSync(path.join(ws, 'tools'));
      execFileSync('ln', ['-s', '/nonexistent/fsmon', path.join(ws, 'tools', 'fsmon.sh')]);
      const r = await run(`rm tools/fsmon.sh && ${script('tools/fsmon.sh')} && echo swapped`);
      assert.equal(r.output, 'swapped\n');
      assert.equal(existsSync(path.join(ws, 'tools', 'fsmon.sh')), false, r.changed.join('\n'));
      hostGit(ws);
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });
  });

  describe("a .git pointer into the sandbox's own package store", () => {
    it('the store git dir is read-only from the next command on', async () => {
      const inStore = path.join(store, '.npm', '_cacache', 'evilB');
      const first = await run(`git init -q --bare "$HOME/.npm/_cacache/evilB" && printf 'gitdir: ${inStore}\\n' > .git && echo made`);
      assert.equal(first.output, 'made\n');
      const r = await run(
        `git config --file "$HOME/.npm/_cacache/evilB/config" core.bare false; git config --file "$HOME/.npm/_cacache/evilB/config" core.fsmonitor "echo PWNED >> ${marker}; false"; echo done`,
      );
      assert.equal(r.output.endsWith('done\n'), true, r.output);
      assert.equal(readFileSync(path.join(inStore, 'config'), 'utf8').includes('fsmonitor'), false, r.changed.join('\n'));
      hostGit(ws);
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });

    it('reached through a symlink in the workspace that leads into the store: read-only too', async () => {
      const first = await run(`git init -q --bare "$HOME/.npm/_cacache/evilC" && ln -s ${path.join(store, '.npm', '_cacache')} link && printf 'gitdir: link/evilC\\n' > .git && echo made`);
      assert.equal(first.output, 'made\n');
      // The command runs (a read-only mount through the symlink would stop bubblewrap), and cannot write the store's git dir.
      const r = await run(`git config --file "$HOME/.npm/_cacache/evilC/config" core.bare false; git config --file "$HOME/.npm/_cacache/evilC/config" core.fsmonitor "echo PWNED >> ${marker}; false"; echo done`);
      assert.equal(r.output.endsWith('done\n'), true, r.output);
      assert.equal(readFileSync(path.join(store, '.npm', '_cacache', 'evilC', 'config'), 'utf8').includes('fsmonitor'), false, r.changed.join('\n'));
      hostGit(ws);
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written fsmonitor');
    });
  });

  describe("a linked worktree's common dir", () => {
    it('its hooks cannot be planted in a later command (the common dir has no HEAD: no repository by itself)', async () => {
      const first = await run(
        `git init -q --bare evil && rm evil/HEAD && git config --file evil/config core.bare false && mkdir -p meta/worktrees/wt wt && echo "ref: refs/heads/main" > meta/worktrees/wt/HEAD && echo ../../../evil > meta/worktrees/wt/commondir && echo "$PWD/wt/.git" > meta/worktrees/wt/gitdir && echo "gitdir: $PWD/meta/worktrees/wt" > wt/.git && echo made`,
      );
      assert.equal(first.output, 'made\n');
      await run(`${script('evil/hooks/pre-commit')}; echo done`);
      hostGit(path.join(ws, 'wt'), 'commit', '--allow-empty', '-qm', 'x');
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written hook');
    });

    it('a worktree pointer the person made to a common dir in the workspace: its hooks folder is read-only', async () => {
      git(ws, 'init', '-q', '--bare', 'evil');
      mkdirSync(path.join(ws, 'meta', 'worktrees', 'wt'), { recursive: true });
      mkdirSync(path.join(ws, 'wt'));
      writeFileSync(path.join(ws, 'meta', 'worktrees', 'wt', 'HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(path.join(ws, 'meta', 'worktrees', 'wt', 'commondir'), '../../../evil\n');
      writeFileSync(path.join(ws, 'meta', 'worktrees', 'wt', 'gitdir'), `${ws}/wt/.git\n`);
      writeFileSync(path.join(ws, 'wt', '.git'), `gitdir: ${ws}/meta/worktrees/wt\n`);
      rmSync(path.join(ws, 'evil', 'HEAD'));
      await run(`${script('evil/hooks/pre-commit')}; echo done`);
      hostGit(path.join(ws, 'wt'), 'commit', '--allow-empty', '-qm', 'x');
      assert.equal(existsSync(marker), false, 'the host git ran the sandbox-written hook');
    });
  });
});

function lstatKind(p: string): string {
  const st = lstatSync(p, { throwIfNoEntry: false });
  return st === undefined ? 'absent' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : 'other';
}
