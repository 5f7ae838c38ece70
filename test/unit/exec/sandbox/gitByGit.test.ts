// The quarantine decides by name and by git itself, never by a parse of git's formats of its own:
// a linked worktree whose `commondir` (under a folder named `worktrees/`) leads to a configured
// common dir, a `gitdir:` with a trailing space (git keeps it), a git dir inside the sandbox's own
// package store, a pointer git cannot place. The host's own `git status` is the judge: a planted
// `core.fsmonitor` would touch a canary outside every writable folder. Real bwrap, bash and git.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { FakeSink } from '../helpers';

describe('exec/sandbox: new repositories as git itself sees them', function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;
  let home: string;
  let store: string;
  let canary: string;
  let runtime: SandboxRuntime;
  let executor: LocalShellExecutor;
  const settings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };

  before(function () {
    if (!probeSandbox().sandbox) this.skip();
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-gitbygit-'));
    ws = path.join(root, 'ws');
    home = path.join(root, 'home');
    store = path.join(root, 'store');
    canary = path.join(root, 'outside', 'canary');
    mkdirSync(ws);
    mkdirSync(path.join(home, '.npm', '_cacache'), { recursive: true });
    mkdirSync(path.dirname(canary));
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

  /** The host's git in `dir`, as VS Code's Git extension runs it. */
  function hostGitStatus(dir: string): void {
    spawnSync('git', ['status', '--short'], { cwd: dir, stdio: 'ignore', env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
  }

  /** A bare repository at `dir` (shell words) whose config runs the fsmonitor that touches the canary. */
  const evilRepo = (dir: string): string =>
    `git init -q --bare ${dir} && printf '#!/bin/sh\\ntouch ${canary}\\n' > "$PWD/mon.sh" && chmod +x "$PWD/mon.sh" && git --git-dir=${dir} config core.fsmonitor "$PWD/mon.sh"`;

  it('a linked worktree whose commondir (under worktrees/) leads to a configured common dir: that config is moved aside', async () => {
    const r = await run(
      `${evilRepo('evil')} && mkdir -p x/worktrees/w wt && echo ../../../evil > x/worktrees/w/commondir && echo 'ref: refs/heads/main' > x/worktrees/w/HEAD && echo "$PWD/wt/.git" > x/worktrees/w/gitdir && echo "gitdir: $PWD/x/worktrees/w" > wt/.git && echo made`,
    );
    assert.equal(r.output, 'made\n');
    const config = path.join(ws, 'evil', 'config');
    assert.equal(existsSync(config), false, r.changed.join('\n'));
    assert.match(readFileSync(`${config}.agent-bash-blocked`, 'utf8'), /fsmonitor/);
    assert.ok(r.changed.some((l) => l.startsWith(`${config} sets core.fsmonitor`)), r.changed.join('\n'));
    hostGitStatus(path.join(ws, 'wt'));
    assert.equal(existsSync(canary), false, 'the host git ran the sandbox-written fsmonitor');
  });

  it('`gitdir: ../gd ` with a trailing space is the folder `gd ` as git reads it, and its config is moved aside', async () => {
    const r = await run(`${evilRepo('"gd "')} && mkdir wt2 && printf 'gitdir: ../gd ' > wt2/.git && echo made`);
    assert.equal(r.output, 'made\n');
    const config = path.join(ws, 'gd ', 'config');
    assert.equal(existsSync(config), false, r.changed.join('\n'));
    hostGitStatus(path.join(ws, 'wt2'));
    assert.equal(existsSync(canary), false, 'the host git ran the sandbox-written fsmonitor');
  });

  it("a gitdir inside the sandbox's own package store is the sandbox's, not the host's: its config is moved aside", async () => {
    const inStore = path.join(store, '.npm', '_cacache', 'evil');
    const r = await run(`${evilRepo('"$HOME/.npm/_cacache/evil"')} && mkdir wt3 && echo "gitdir: ${inStore}" > wt3/.git && echo made`);
    assert.equal(r.output, 'made\n');
    assert.equal(existsSync(path.join(inStore, 'config')), false, r.changed.join('\n'));
    assert.equal(existsSync(path.join(home, '.npm', '_cacache', 'evil')), false, "the host's own store is untouched");
    hostGitStatus(path.join(ws, 'wt3'));
    assert.equal(existsSync(canary), false, 'the host git ran the sandbox-written fsmonitor');
  });

  it('a .git pointer git cannot place is moved aside whole (in doubt)', async () => {
    const r = await run('mkdir wt4 && printf "gitdir: nowhere\\n" > wt4/.git && echo made');
    assert.equal(r.output, 'made\n');
    assert.equal(existsSync(path.join(ws, 'wt4', '.git')), false);
    assert.equal(readFileSync(path.join(ws, 'wt4', '.git.agent-bash-blocked'), 'utf8'), 'gitdir: nowhere\n');
    assert.ok(r.changed.some((l) => l.startsWith(`${path.join(ws, 'wt4', '.git')} points at a repository git cannot tell`)), r.changed.join('\n'));
  });
});
