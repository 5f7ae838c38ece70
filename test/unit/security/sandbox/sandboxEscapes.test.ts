// Escapes an attacker who has read src/exec/sandbox tries, judged by the host: git metadata at every
// depth (the host's own `git status` must not run a `core.fsmonitor` the sandbox wrote), protected
// names that do not exist yet, hard links and symlinks at protected names, direnv inside the sandbox,
// credential stores, the limits, and deny rules that name a whole program. Real bash, bwrap and git.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovalAnswer, Approver, PolicyRule, ShellAnalyzer, ToolResult } from '../../../../src/core/contracts';
import { FileArtifactStore } from '../../../../src/core/output/artifacts';
import { BashPipeline } from '../../../../src/core/pipeline';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { direnvStage } from '../../../../src/exec/direnv';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { programsDeniedByRules } from '../../../../src/exec/sandbox/mounts/denyMasks';
import { cgroupControllers } from '../../../../src/exec/sandbox/kernel/limits';
import { landlockSupport } from '../../../../src/exec/sandbox/kernel/landlock';
import { nativeLaunch } from '../../../../src/exec/sandbox/kernel/nativeLaunch';
import { findOnPath, probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { GIT_WRITE_HINT } from '../../../../src/core/sandboxRefusals';
import { BLOCKED_SUFFIX } from '../../../../src/exec/sandbox/mounts/newRepoQuarantine';
import { settingsWith } from '../../exec/helpers';

const textOf = (r: ToolResult): string => r.content.map((c) => c.text).join('\n');

class AllowApprover implements Approver {
  async approve(): Promise<ApprovalAnswer> {
    return { kind: 'allow' };
  }
}


const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

describe('exec/sandbox: escapes the host judges', function () {
  this.timeout(60_000);
  let analyzer: ShellAnalyzer;
  let root: string;
  let ws: string;
  let home: string;
  let outside: string;
  let canary: string;
  let sandboxSettings: SandboxSettings;
  let runtime: SandboxRuntime;
  let executor: LocalShellExecutor;
  let patterns: PolicyRule[];
  let direnv: 'auto' | 'off';

  before(async function () {
    if (!probeSandbox().sandbox) this.skip();
    analyzer = await createShellAnalyzer();
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-esc-'));
    ws = path.join(root, 'ws');
    home = path.join(root, 'home');
    outside = path.join(root, 'outside');
    canary = path.join(outside, 'canary');
    for (const d of [ws, home, outside]) mkdirSync(d, { recursive: true });
    sandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };
    patterns = [
      { match: 'rm *', approval: 'deny' },
      { match: 'curl', approval: 'deny' },
      { match: 'git push *', approval: 'deny' },
      { match: '*', approval: 'allow', allowRedirects: true },
    ];
    direnv = 'off';
    runtime = new SandboxRuntime({
      settings: () => sandboxSettings,
      workspaceRoots: () => [ws],
      home,
      maskedPrograms: () => programsDeniedByRules(patterns),
    });
    executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
  });

  afterEach(async () => {
    await executor.dispose();
    runtime.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  const make = () =>
    new BashPipeline({
      settings: () => settingsWith(patterns, direnv),
      analyzer,
      approver: new AllowApprover(),
      artifacts: new FileArtifactStore(path.join(root, 'artifacts')),
      executor,
      sessionCwd: () => ws,
      workspaceRoots: () => [ws],
      sessionId: 'esc',
      sandbox: { levelFor: (off) => runtime.levelFor(off), autoApprove: () => false, watch: () => runtime.watch() },
      environment: direnvStage(() => direnv, () => ({ ...process.env, HOME: home }), runtime),
    });

  /** A repository at `dir` made on the host, with one commit. */
  function hostRepo(dir: string): void {
    mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q');
    writeFileSync(path.join(dir, 'f.txt'), 'f\n');
    git(dir, 'add', 'f.txt');
    git(dir, '-c', 'user.email=a@b.c', '-c', 'user.name=n', 'commit', '-qm', 'one');
  }

  /** The host runs `git status` where VS Code's Git extension would: the canary says whether a planted fsmonitor ran. */
  function hostGitStatus(dir: string): void {
    spawnSync('git', ['status', '--short'], { cwd: dir, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  }

  const plant = (canaryPath: string): string => {
    // The fsmonitor hook: a script the sandbox writes in the workspace, named by core.fsmonitor.
    return `printf '#!/bin/sh\\ntouch ${canaryPath}\\n' > "$PWD/mon.sh"; chmod +x "$PWD/mon.sh"`;
  };

  it('no `.git` can be rewritten at any depth: config, commondir, mv .git, nested and submodule repositories, worktree pointers', async () => {
    hostRepo(ws);
    hostRepo(path.join(ws, 'sub', 'nested'));
    // A submodule's git dir and a linked worktree's pointer file.
    mkdirSync(path.join(ws, '.git', 'modules', 'm'), { recursive: true });
    writeFileSync(path.join(ws, '.git', 'modules', 'm', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(path.join(ws, '.git', 'modules', 'm', 'config'), '[core]\n');
    git(ws, 'worktree', 'add', '-q', path.join(ws, 'wt'));
    const before = {
      config: readFileSync(path.join(ws, '.git', 'config'), 'utf8'),
      nested: readFileSync(path.join(ws, 'sub', 'nested', '.git', 'config'), 'utf8'),
      wtPointer: readFileSync(path.join(ws, 'wt', '.git'), 'utf8'),
    };
    const attempts = [
      plant(canary),
      'git config core.fsmonitor "$PWD/mon.sh"',
      `printf '[core]\\n\\tfsmonitor = %s\\n' "$PWD/mon.sh" >> .git/config`,
      'echo "$PWD/evil" > .git/commondir',
      'printf "[core]\\n\\tfsmonitor = $PWD/mon.sh\\n" >> .git/modules/m/config',
      'git -C sub/nested config core.fsmonitor "$PWD/mon.sh"',
      'echo "gitdir: $PWD/evil" > wt/.git',
      'mv .git moved; echo "mv .git: $?"',
      'mv sub sub2; echo "mv sub: $?"',
      'mv sub/nested/.git sub/nested/old; echo "mv nested: $?"',
      'mkdir -p .git/hooks/x 2>/dev/null; echo done',
    ];
    const r = await make().run({ command: attempts.join('; ') });
    const out = textOf(r);
    assert.match(out, /^mv \.git: 1$/m, out);
    assert.match(out, /^mv sub: 1$/m, out);
    assert.match(out, /^mv nested: 1$/m, out);
    assert.match(out, /mv: cannot move '\.git' to 'moved': Device or resource busy/, out);
    assert.match(out, /^done$/m, out);
    assert.equal(readFileSync(path.join(ws, '.git', 'config'), 'utf8'), before.config);
    assert.equal(readFileSync(path.join(ws, 'sub', 'nested', '.git', 'config'), 'utf8'), before.nested);
    assert.equal(readFileSync(path.join(ws, '.git', 'modules', 'm', 'config'), 'utf8'), '[core]\n');
    assert.equal(readFileSync(path.join(ws, 'wt', '.git'), 'utf8'), before.wtPointer);
    assert.equal(existsSync(path.join(ws, '.git', 'commondir')), false);
    assert.equal(existsSync(path.join(ws, 'moved')), false);
    assert.equal(existsSync(path.join(ws, 'sub2')), false);
    for (const dir of [ws, path.join(ws, 'sub', 'nested'), path.join(ws, 'wt')]) hostGitStatus(dir);
    assert.equal(existsSync(canary), false, 'the host git status ran a fsmonitor the sandbox wrote');
    // The planted script itself is an ordinary workspace file.
    assert.ok(existsSync(path.join(ws, 'mon.sh')));
  });

  it('a new repository made in a new folder, with only what git writes, is the person\'s without a word, and read-only from the next command on', async () => {
    hostRepo(ws);
    const r = await make().run({ command: 'mkdir fresh && git init -q fresh && git -C fresh config user.name n && git -C fresh -c user.email=a@b.c commit -q --allow-empty -m x && echo made' });
    assert.match(textOf(r), /^made$/m);
    assert.equal(r.details.sandbox?.protectedChanged, undefined, textOf(r));
    assert.doesNotMatch(textOf(r), /protected paths/);
    assert.equal(git(path.join(ws, 'fresh'), 'log', '--format=%s').trim(), 'x');
    assert.equal(git(path.join(ws, 'fresh'), 'config', 'user.name').trim(), 'n');
    const next = await make().run({ command: 'git -C fresh config core.fsmonitor "$PWD/mon.sh"; echo rc=$?' });
    assert.match(textOf(next), /^rc=\d+$/m);
    assert.doesNotMatch(readFileSync(path.join(ws, 'fresh', '.git', 'config'), 'utf8'), /fsmonitor/);
    assert.equal(next.details.sandbox?.protectedChanged, undefined);
  });

  it('a repository made and configured in one command: the host git never runs what it set; a plain clone keeps its config', async () => {
    hostRepo(ws);
    hostRepo(path.join(outside, 'upstream'));
    const mon = '"$PWD/mon.sh"';
    const r = await make().run({
      command: [
        plant(canary),
        `git init -q a && git -C a config core.fsmonitor ${mon}`,
        `git init -q b && printf '[core]\\n\\tfsmonitor = %s\\n' ${mon} > inc.cfg && git -C b config include.path "$PWD/inc.cfg"`,
        `git init -q --bare evil && git -C evil config core.bare false && git -C evil config core.fsmonitor ${mon} && mkdir c && echo "gitdir: ../evil" > c/.git`,
        `git init -q --bare evil2 && git -C evil2 config core.bare false && git -C evil2 config core.fsmonitor ${mon} && mkdir d && ln -s ../evil2 d/.git`,
        `git init -q e && git -C e config extensions.worktreeconfig true && printf '[core]\\n\\tfsmonitor = %s\\n' ${mon} > e/.git/config.worktree`,
        `git init -q f && printf '#!/bin/sh\\ntouch ${canary}\\n' > f/.git/hooks/pre-commit && chmod +x f/.git/hooks/pre-commit`,
        `git clone -q ${path.join(outside, 'upstream')} clone`,
        'echo made',
      ].join('; '),
    });
    const out = textOf(r);
    assert.match(out, /^made$/m, out);
    for (const dir of ['a', 'b', 'c', 'd', 'e', 'f', 'clone']) hostGitStatus(path.join(ws, dir));
    assert.equal(existsSync(canary), false, 'the host git status ran a fsmonitor the sandbox wrote');
    const moved = (r.details.sandbox?.protectedChanged ?? []).filter((l) => l.includes('(moved aside to '));
    assert.deepEqual(moved.map((l) => l.slice(0, l.indexOf(' ')).slice(ws.length + 1)).sort(), ['a/.git/config', 'b/.git/config', 'e/.git/config.worktree', 'evil/config', 'evil2/config', 'f/.git/hooks/pre-commit'], out);
    assert.equal(existsSync(path.join(ws, 'f', '.git', 'hooks', 'pre-commit')), false);
    assert.ok(existsSync(path.join(ws, 'f', '.git', 'hooks', 'pre-commit.agent-bash-blocked')));
    // What git init and clone write is left alone: the clone still knows its remote and its history.
    assert.equal(git(path.join(ws, 'clone'), 'config', 'remote.origin.url').trim(), path.join(outside, 'upstream'));
    assert.equal(git(path.join(ws, 'clone'), 'log', '--format=%s').trim(), 'one');
    assert.ok(existsSync(path.join(ws, 'a', '.git', 'hooks', 'pre-commit.sample')));
  });

  it('a persistent shell\'s background job that makes a repository after its call ended: the next call neutralizes it', async () => {
    hostRepo(ws);
    await executor.dispose();
    executor = new LocalShellExecutor({ persistent: true, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    const first = await make().run({
      command: `${plant(canary)}; (while [ ! -e go ]; do sleep 0.05; done; git init -q late && git -C late config core.fsmonitor "$PWD/mon.sh"; echo done > made) >/dev/null 2>&1 & echo started`,
    });
    assert.match(textOf(first), /^started$/m, textOf(first));
    assert.equal(first.details.sandbox?.protectedChanged, undefined, textOf(first));
    // The call has ended; its background job goes on in the session's shell.
    writeFileSync(path.join(ws, 'go'), '');
    for (let i = 0; i < 600 && !existsSync(path.join(ws, 'made')); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(path.join(ws, 'made')), 'the background job ran');
    const second = await make().run({ command: 'echo second' });
    const config = path.join(ws, 'late', '.git', 'config');
    // (Whether it also says the `.git` was created depends on how old the plan its first look reused is.)
    const moved = (second.details.sandbox?.protectedChanged ?? []).filter((l) => l.includes('moved aside'));
    assert.deepEqual(moved, [`${config} sets core.fsmonitor (moved aside to ${config}.agent-bash-blocked)`], textOf(second));
    hostGitStatus(path.join(ws, 'late'));
    assert.equal(existsSync(canary), false, 'the host git status ran a fsmonitor a background job wrote');
    // Known from then on: the third call says nothing more.
    const third = await make().run({ command: 'echo third' });
    assert.equal(third.details.sandbox?.protectedChanged, undefined, textOf(third));
  });

  it('a repository a call made and left harmless, configured after the call by its background job: the next call moves the config aside', async () => {
    hostRepo(ws);
    await executor.dispose();
    executor = new LocalShellExecutor({ persistent: true, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    const first = await make().run({
      command: `${plant(canary)}; git init -q made; (while [ ! -e go ]; do sleep 0.05; done; git -C made config core.fsmonitor "$PWD/mon.sh"; echo done > flag) >/dev/null 2>&1 & echo started`,
    });
    assert.match(textOf(first), /^started$/m, textOf(first));
    // Only what git init writes: nothing to say.
    assert.equal(first.details.sandbox?.protectedChanged, undefined, textOf(first));
    writeFileSync(path.join(ws, 'go'), '');
    for (let i = 0; i < 600 && !existsSync(path.join(ws, 'flag')); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(path.join(ws, 'flag')), 'the background job ran');
    const second = await make().run({ command: 'echo second' });
    const config = path.join(ws, 'made', '.git', 'config');
    // (The script the config named is listed too: it was protected once the config named it.)
    const moved = (second.details.sandbox?.protectedChanged ?? []).filter((l) => l.includes('moved aside'));
    assert.deepEqual(moved, [`${config} sets core.fsmonitor (moved aside to ${config}${BLOCKED_SUFFIX})`], textOf(second));
    hostGitStatus(path.join(ws, 'made'));
    assert.equal(existsSync(canary), false, 'the host git status ran a fsmonitor a background job wrote');
    // The shell that could write it is gone (replaced: the repository is new to its mounts): what
    // the person sets now is theirs.
    git(path.join(ws, 'made'), 'config', 'core.hooksPath', '.husky');
    const third = await make().run({ command: 'echo third' });
    assert.equal(third.details.sandbox?.protectedChanged?.some((l) => l.includes('moved aside')) ?? false, false, textOf(third));
    assert.equal(git(path.join(ws, 'made'), 'config', 'core.hooksPath').trim(), '.husky');
  });

  it('a persistent shell started before a repository or a secret appeared on the host is replaced, never left with stale mounts', async () => {
    await executor.dispose();
    executor = new LocalShellExecutor({ persistent: true, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    const first = await make().run({ command: 'export KEPT=yes; echo first' });
    assert.match(textOf(first), /^first$/m, textOf(first));
    const kept = await make().run({ command: 'echo "kept=$KEPT"' });
    assert.match(textOf(kept), /^kept=yes$/m, 'nothing changed: the same shell, its state kept');
    // The user clones a repository and logs in to a cloud CLI while the session's shell lives.
    hostRepo(path.join(ws, 'sub'));
    mkdirSync(path.join(home, '.aws'));
    writeFileSync(path.join(home, '.aws', 'credentials'), 'SECRET\n');
    const config = readFileSync(path.join(ws, 'sub', '.git', 'config'), 'utf8');
    // Whatever the next call finds, the one after it runs under the mounts of now.
    await make().run({ command: 'true' });
    const r = await make().run({ command: `${plant(canary)}; git -C sub config core.fsmonitor "$PWD/mon.sh"; echo "rc=$?"; cat ~/.aws/credentials; echo "kept=$KEPT"` });
    const out = textOf(r);
    assert.match(out, /^rc=255$/m, out);
    assert.doesNotMatch(out, /SECRET/);
    assert.match(out, /^kept=$/m, out);
    assert.ok(out.includes("it was replaced: variables, functions and the working directory set earlier are gone"), out);
    assert.equal(readFileSync(path.join(ws, 'sub', '.git', 'config'), 'utf8'), config);
    hostGitStatus(path.join(ws, 'sub'));
    assert.equal(existsSync(canary), false);
  });

  it('a writable folder a command replaced with a symlink is not followed by the next command\'s bind; a symlinked cache of the user\'s is only when shared with the host', async () => {
    sandboxSettings.allowWrite = ['./opened', './build/out'];
    const target = path.join(outside, 'target');
    mkdirSync(target);
    mkdirSync(path.join(ws, 'build'));
    // The user's own cache folder lives elsewhere, through a symlink the sandbox cannot change.
    const cacheReal = path.join(outside, 'npm-cache');
    mkdirSync(cacheReal);
    mkdirSync(path.join(home, '.npm'));
    symlinkSync(cacheReal, path.join(home, '.npm', '_cacache'));
    // A relative link: bubblewrap would resolve it inside the new root too, binding the target writable.
    const plant = await make().run({ command: `ln -s ../outside/target opened; rmdir build; ln -s ${outside} build; echo planted` });
    assert.match(textOf(plant), /^planted$/m, textOf(plant));
    const r = await make().run({ command: 'echo x > opened/f; echo "opened: $?"; mkdir -p build/out; echo x > build/out/f; echo "build: $?"; echo c > ~/.npm/_cacache/c; echo "cache: $?"; echo w > ws.txt; echo "ws: $?"' });
    const out = textOf(r);
    assert.match(out, /^opened: 1$/m, out);
    assert.match(out, /^build: 1$/m, out);
    assert.match(out, /^cache: 0$/m, out);
    assert.match(out, /^ws: 0$/m, out);
    assert.deepEqual(readdirSync(target), []);
    assert.equal(existsSync(path.join(outside, 'out')), false);
    // By default the cache is a store of the sandbox's own: the user's linked cache holds nothing new.
    assert.deepEqual(readdirSync(cacheReal), []);
    assert.equal(readFileSync(path.join(home, '.local/state/agent-bash/sandbox-caches/.npm/_cacache/c'), 'utf8'), 'c\n');
    // Shared with the host, the user's cache is written through its link (the link itself is not the sandbox's to change).
    sandboxSettings = { ...sandboxSettings, sharedCaches: true };
    const shared = await make().run({ command: 'echo s > ~/.npm/_cacache/s; echo "cache: $?"' });
    assert.match(textOf(shared), /^cache: 0$/m, textOf(shared));
    assert.equal(readFileSync(path.join(cacheReal, 's'), 'utf8'), 's\n');
  });

  it("what a repository's git config names in the workspace is read-only: included config files (the repository's and the global config's), the hooks folder, a fsmonitor script; an absent include a command makes is moved aside", async () => {
    hostRepo(ws);
    hostRepo(path.join(ws, 'sub'));
    const hostEnv = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
    const hostGit = (cwd: string, ...args: string[]): void => {
      spawnSync('git', args, { cwd, stdio: 'ignore', env: hostEnv });
    };
    // The project's own config file, husky's hook folder, a fsmonitor script of the project, an
    // include that does not exist yet, and a dotfiles file the user's global config includes.
    git(ws, 'config', 'include.path', '../.gitconfig.project');
    writeFileSync(path.join(ws, '.gitconfig.project'), '[user]\n\tname = n\n');
    git(ws, 'config', 'core.hooksPath', '.husky');
    git(path.join(ws, 'sub'), 'config', 'core.fsmonitor', 'tools/mon.sh');
    mkdirSync(path.join(ws, 'sub', 'tools'));
    writeFileSync(path.join(ws, 'sub', 'tools', 'mon.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    git(path.join(ws, 'sub'), 'config', 'include.path', '../.gitconfig.local');
    writeFileSync(path.join(home, '.gitconfig'), `[include]\n\tpath = ${path.join(ws, 'dotfiles', 'gitconfig')}\n`);
    mkdirSync(path.join(ws, 'dotfiles'));
    writeFileSync(path.join(ws, 'dotfiles', 'gitconfig'), '[color]\n\tui = auto\n');
    const monitor = (file: string): string => `printf '[core]\\n\\tfsmonitor = %s\\n' "$PWD/mon.sh" >> ${file}; echo "${file}: $?"`;
    const r = await make().run({
      command: [
        plant(canary),
        monitor('.gitconfig.project'),
        monitor('dotfiles/gitconfig'),
        `mkdir -p .husky 2>/dev/null; printf '#!/bin/sh\\ntouch ${canary}\\n' > .husky/pre-commit; echo ".husky: $?"`,
        `printf '#!/bin/sh\\ntouch ${canary}\\n' > sub/tools/mon.sh; echo "mon.sh: $?"`,
        // The folders on the way cannot be renamed for a new one to take their place.
        `mv sub/tools sub/t2 2>/dev/null; echo "mv tools: $?"`,
        `mv dotfiles d2 2>/dev/null; echo "mv dotfiles: $?"`,
        monitor('sub/.gitconfig.local'),
        'echo ok > notes.txt; echo done',
      ].join('; '),
    });
    const out = textOf(r);
    for (const line of ['.gitconfig.project: 1', 'dotfiles/gitconfig: 1', '.husky: 1', 'mon.sh: 1', 'mv tools: 1', 'mv dotfiles: 1', 'sub/.gitconfig.local: 0', 'done']) assert.ok(out.split('\n').includes(line), `${line}\n${out}`);
    assert.equal(readFileSync(path.join(ws, '.gitconfig.project'), 'utf8'), '[user]\n\tname = n\n');
    assert.equal(readFileSync(path.join(ws, 'dotfiles', 'gitconfig'), 'utf8'), '[color]\n\tui = auto\n');
    assert.equal(readFileSync(path.join(ws, 'sub', 'tools', 'mon.sh'), 'utf8'), '#!/bin/sh\nexit 0\n');
    const local = path.join(ws, 'sub', '.gitconfig.local');
    assert.equal(existsSync(local), false);
    assert.ok((r.details.sandbox?.protectedChanged ?? []).includes(`${local} is named by a git config as code or config git runs or reads (moved aside to ${local}.agent-bash-blocked)`), out);
    // The host judges: its git status in both repositories, and a commit (husky's hook folder).
    hostGit(ws, 'status', '--short');
    hostGit(path.join(ws, 'sub'), 'status', '--short');
    hostGit(ws, '-c', 'user.email=a@b.c', '-c', 'user.name=n', 'commit', '-qm', 'two', '--allow-empty');
    assert.equal(existsSync(canary), false, 'the host git ran something the sandbox wrote');
    assert.equal(readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'ok\n');
  });

  it('a named pipe outside the writable folders cannot be written (read-only mounts do not stop it): one-shot and persistent shell; writes, renames and /dev still work', async function () {
    // Landlock needs Linux 5.19+ and the compiled launcher or perl; a machine without them says so in the result instead (checked below).
    const native = nativeLaunch();
    const support = native ? { perl: native.abi >= 2 ? native.path : undefined } : landlockSupport(findOnPath('perl', process.env.PATH));
    const fifo = path.join(outside, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const attempt = `timeout 10 bash -c "echo pwned > ${fifo}"; echo "fifo: $?"`;
    if (support.perl === undefined) {
      const r = await make().run({ command: 'true' });
      assert.ok((r.details.sandbox?.skipped ?? []).some((l) => l.startsWith('named pipes (FIFOs) outside the writable folders: ')), textOf(r));
      this.skip();
    }
    // The host reads the pipe until a writer closes it; the host writes the last line itself.
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let heard = '';
    reader.stdout.on('data', (d: Buffer) => (heard += d.toString('utf8')));
    const closed = new Promise<void>((resolve) => reader.on('close', () => resolve()));
    const oneShot = await make().run({ command: `${attempt}; mkdir -p a b; echo x > a/f; mv a/f b/f; echo "mv: $?"; echo x > /dev/null; echo "null: $?"; echo x > "$TMPDIR/t"; echo "tmp: $?"` });
    await executor.dispose();
    executor = new LocalShellExecutor({ persistent: true, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    const persistent = await make().run({ command: attempt });
    spawnSync('sh', ['-c', `echo host > ${fifo}`], { timeout: 20_000 });
    await closed;
    assert.equal(heard, 'host\n', 'a sandboxed command wrote into the host\'s named pipe');
    const out = textOf(oneShot);
    for (const line of ['fifo: 1', 'mv: 0', 'null: 0', 'tmp: 0']) assert.ok(out.split('\n').includes(line), `${line}\n${out}`);
    assert.ok(out.includes(`bash: line 1: ${fifo}: Permission denied`), out);
    assert.ok(textOf(persistent).split('\n').includes('fifo: 1'), textOf(persistent));
    assert.equal(readFileSync(path.join(ws, 'b', 'f'), 'utf8'), 'x\n');
    assert.equal(oneShot.details.sandbox?.skipped, undefined, textOf(oneShot));
  });

  it('protected files without a placeholder (.mcp.json, .gitmodules, *.code-workspace) made by a command are moved aside', async () => {
    const r = await make().run({
      command: 'echo \'{"mcpServers":{"x":{"command":"evil"}}}\' > .mcp.json; echo \'[submodule "x"]\' > .gitmodules; echo \'{"tasks":{}}\' > evil.code-workspace; echo ok > notes.json; echo made',
    });
    assert.match(textOf(r), /^made$/m, textOf(r));
    for (const name of ['.mcp.json', '.gitmodules', 'evil.code-workspace']) {
      assert.equal(existsSync(path.join(ws, name)), false, name);
      assert.ok(existsSync(path.join(ws, `${name}.agent-bash-blocked`)), name);
      assert.ok((r.details.sandbox?.protectedChanged ?? []).includes(`${path.join(ws, name)} is a protected name the command created (moved aside to ${path.join(ws, name)}.agent-bash-blocked)`), textOf(r));
    }
    assert.equal(readFileSync(path.join(ws, 'notes.json'), 'utf8'), 'ok\n');
  });

  it('protected names that do not exist yet cannot be made; a workspace that is no repository can become one', async () => {
    const r = await make().run({
      command: 'for d in .claude .idea .devcontainer .cursor .agent-bash .vscode; do mkdir -p $d/x 2>/dev/null; echo x > $d/f 2>/dev/null; done; git init -q . ; echo "init: $?"',
    });
    assert.match(textOf(r), /^init: 0$/m, textOf(r));
    assert.ok(textOf(r).includes('The OS sandbox refused writing'), textOf(r));
    assert.equal(r.details.sandbox?.protectedChanged, undefined, textOf(r));
    for (const d of ['.claude', '.idea', '.devcontainer', '.cursor', '.agent-bash', '.vscode']) {
      // What bwrap leaves behind: an empty folder at most.
      const p = path.join(ws, d);
      assert.deepEqual(existsSync(p) ? readdirSync(p) : [], [], d);
    }
    assert.equal(spawnSync('git', ['rev-parse', '--git-dir'], { cwd: ws, encoding: 'utf8', env: { ...process.env, GIT_CEILING_DIRECTORIES: root } }).stdout, '.git\n');
    // From the next command on it is protected as every existing `.git` is.
    const next = await make().run({ command: `git config core.fsmonitor "$PWD/mon.sh"; echo "config: $?"` });
    assert.match(textOf(next), /^config: 255$/m, textOf(next));
    assert.ok(textOf(next).includes(`; ${GIT_WRITE_HINT})`), textOf(next));
    assert.doesNotMatch(readFileSync(path.join(ws, '.git', 'config'), 'utf8'), /fsmonitor/);
  });

  it('git init at the workspace root that sets a program: the config is moved aside, the notice names the key, the host git runs nothing', async () => {
    const r = await make().run({
      command: [plant(canary), 'git init -q . && git config core.fsmonitor "$PWD/mon.sh" && git config core.editor vi && echo "config: $?"'].join('; '),
    });
    assert.match(textOf(r), /^config: 0$/m, textOf(r));
    const config = path.join(ws, '.git', 'config');
    // (The script the config named is listed as created too: the look after the command protects it.)
    const moved = (r.details.sandbox?.protectedChanged ?? []).filter((l) => l.includes('moved aside'));
    assert.deepEqual(moved, [`${config} sets core.fsmonitor, core.editor (moved aside to ${config}${BLOCKED_SUFFIX})`]);
    assert.ok(textOf(r).includes(`${config} sets core.fsmonitor, core.editor (moved aside`), textOf(r));
    hostGitStatus(ws);
    assert.equal(existsSync(canary), false, 'the host git status ran a fsmonitor the sandbox wrote');
  });

  it('git.allowWrite: init, add, commit work; config, hooks and commondir stay read-only; .git cannot be moved', async () => {
    sandboxSettings.gitAllowWrite = true;
    const r = await make().run({
      command: [
        'git init -q . && echo a > a.txt && git add a.txt && git -c user.email=a@b.c -c user.name=n commit -qm first && git log --format=%s',
      ].join('; '),
    });
    assert.equal(r.isError, undefined, textOf(r));
    assert.match(textOf(r), /^first$/m);
    assert.equal(r.details.sandbox?.protectedChanged, undefined, textOf(r));
    const config = readFileSync(path.join(ws, '.git', 'config'), 'utf8');
    const second = await make().run({
      command: [
        plant(canary),
        'git config core.fsmonitor "$PWD/mon.sh"',
        'printf "#!/bin/sh\\ntouch $PWD/../outside/hook\\n" > .git/hooks/pre-commit',
        'mv .git moved; echo "mv: $?"',
        'echo b > b.txt && git add b.txt && git -c user.email=a@b.c -c user.name=n commit -qm second && git log --format=%s | head -1',
      ].join('; '),
    });
    const out = textOf(second);
    assert.match(out, /^mv: 1$/m, out);
    assert.match(out, /^second$/m, out);
    assert.equal(readFileSync(path.join(ws, '.git', 'config'), 'utf8'), config);
    assert.equal(existsSync(path.join(ws, '.git', 'hooks', 'pre-commit')), false);
    assert.equal(second.details.sandbox?.protectedChanged, undefined, out);
    assert.equal(git(ws, 'log', '--format=%s').trim(), 'second\nfirst');
    // commondir does not exist and cannot have a placeholder (git fails to read one): the check
    // after the command finds it and moves it aside before the host's git can follow it.
    mkdirSync(path.join(root, 'evil'));
    writeFileSync(path.join(root, 'evil', 'config'), `[core]\n\tfsmonitor = ${path.join(ws, 'mon.sh')}\n`, { flag: 'w' });
    const third = await make().run({ command: `echo ${path.join(root, 'evil')} > .git/commondir; echo written` });
    assert.match(textOf(third), /^written$/m);
    const commondir = path.join(ws, '.git', 'commondir');
    assert.deepEqual(third.details.sandbox?.protectedChanged, [`${commondir} was created (moved aside to ${commondir}.agent-bash-blocked)`]);
    assert.equal(existsSync(commondir), false);
    hostGitStatus(ws);
    assert.equal(existsSync(canary), false);
    assert.equal(existsSync(path.join(outside, 'hook')), false);
    assert.equal(git(ws, 'log', '--format=%s').trim(), 'second\nfirst');
  });

  it('an earlier hard link to a protected file is read-only too, and the result says so', async () => {
    writeFileSync(path.join(ws, '.mcp.json'), '{}\n');
    linkSync(path.join(ws, '.mcp.json'), path.join(ws, 'alias.json'));
    const r = await make().run({ command: 'echo \'{"mcpServers":{"x":{"command":"evil"}}}\' > alias.json; echo rc=$?' });
    assert.match(textOf(r), /^rc=1$/m, textOf(r));
    assert.equal(readFileSync(path.join(ws, '.mcp.json'), 'utf8'), '{}\n');
    assert.deepEqual(r.details.sandbox?.skipped, [`${path.join(ws, '.mcp.json')}: has 2 hard links; ${path.join(ws, 'alias.json')} mounted read-only too`]);
  });

  it('a symlink planted at an absent protected name never breaks the sandbox: the command runs and the result names it', async () => {
    symlinkSync('/nonexistent/target', path.join(ws, '.claude'));
    symlinkSync(outside, path.join(ws, '.idea'));
    const r = await make().run({ command: 'echo still runs' });
    assert.equal(r.isError, undefined, textOf(r));
    assert.match(textOf(r), /^still runs$/m);
    assert.deepEqual(r.details.sandbox?.skipped, [
      `${path.join(ws, '.idea')}: a symlink to ${outside}, outside the writable folders; not mounted`,
      `${path.join(ws, '.claude')}: a symlink to nothing; not mounted`,
    ]);
    assert.ok(textOf(r).includes(`the sandbox did not protect ${path.join(ws, '.idea')}: a symlink`), textOf(r));
  });

  it('direnv runs inside the sandbox: an allowed .envrc sourcing a sandbox-written .envrc.local cannot touch the host', async function () {
    if (spawnSync('direnv', ['version']).status !== 0) this.skip();
    writeFileSync(path.join(ws, '.envrc'), 'source_env_if_exists .envrc.local\nexport FROM_ENVRC=yes\n');
    const env = { ...process.env, HOME: home, XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_CONFIG_HOME: path.join(home, '.config') };
    execFileSync('direnv', ['allow', ws], { env, cwd: ws });
    direnv = 'auto';
    // What an earlier sandboxed command wrote: the workspace is writable.
    const wrote = await make().run({ command: `echo 'touch ${canary}; export FROM_LOCAL=yes' > .envrc.local` });
    assert.equal(wrote.isError, undefined, textOf(wrote));
    executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: env });
    const pipeline = new BashPipeline({
      settings: () => settingsWith(patterns, 'auto'),
      analyzer,
      approver: new AllowApprover(),
      artifacts: new FileArtifactStore(path.join(root, 'artifacts')),
      executor,
      sessionCwd: () => ws,
      workspaceRoots: () => [ws],
      sessionId: 'esc-direnv',
      sandbox: { levelFor: (off) => runtime.levelFor(off), autoApprove: () => false, watch: () => runtime.watch() },
      environment: direnvStage(() => 'auto', () => env, runtime),
    });
    const r = await pipeline.run({ command: 'echo "$FROM_ENVRC $FROM_LOCAL"' });
    assert.equal(textOf(r).split('\n')[0], 'yes yes', textOf(r));
    assert.equal(existsSync(canary), false, 'the .envrc.local ran on the host');
  });

  it('hides credential stores by pattern and .env*/.envrc* above the workspace', async () => {
    const secrets = [
      '.git-credentials', '.config/git/credentials', '.config/gh/hosts.yml', '.netrc', '.npmrc', '.pypirc', '.docker/config.json', '.kube/config',
      '.aws/credentials', '.config/gcloud/credentials.db', '.config/doctl/config.yaml', '.config/github-copilot/apps.json', '.claude.json',
      '.claude/.credentials.json', '.codex/auth.json', '.gemini/oauth_creds.json', '.config/Code/User/globalStorage/state.vscdb',
      '.config/Code - Insiders/User/globalStorage/state.vscdb.backup', '.local/share/code-server/User/globalStorage/state.vscdb', '.envrc', '.env.production',
    ];
    for (const rel of secrets) {
      mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
      writeFileSync(path.join(home, rel), 'SECRET\n');
    }
    writeFileSync(path.join(root, '.envrc'), 'SECRET\n');
    writeFileSync(path.join(root, '.envrc.local'), 'SECRET\n');
    writeFileSync(path.join(ws, '.env'), 'mine\n');
    const r = await make().run({ command: `for f in ${secrets.map((s) => `~/'${s}'`).join(' ')} ../.envrc ../.envrc.local; do cat "$f" 2>/dev/null; done; cat .env` });
    assert.equal(textOf(r).split('\n')[0], 'mine', textOf(r));
    assert.doesNotMatch(textOf(r), /SECRET/);
  });

  it('the writable caches are package stores only: never ~/.cache or this extension\'s own cache', async () => {
    for (const d of ['.cache/agent-bash/node24/bin', '.cache/pip', '.npm/_npx', '.npm/_cacache']) mkdirSync(path.join(home, d), { recursive: true });
    const r = await make().run({ command: 'for d in ~/.cache/agent-bash/node24/bin ~/.cache ~/.npm/_npx ~/.cache/pip ~/.npm/_cacache; do touch "$d/x" 2>/dev/null && echo "w $d"; done; true' });
    assert.equal(textOf(r).split('\n').filter((l) => l.startsWith('w ')).join('\n'), `w ${home}/.cache/pip\nw ${home}/.npm/_cacache`);
    assert.equal(existsSync(path.join(home, '.cache/agent-bash/node24/bin/x')), false);
    // The writes went to the sandbox's own stores: the host's stay as they were.
    assert.equal(existsSync(path.join(home, '.cache/pip/x')), false);
    assert.equal(existsSync(path.join(home, '.npm/_cacache/x')), false);
  });

  it("a package store the host's builds read later is the sandbox's own: a planted build.rs, Go object or cached packument never reaches the host's (shared only when the user says so)", async () => {
    const stores = ['.cargo/registry/src/index/evil-1.0', '.cache/go-build/ab', '.npm/_cacache/index-v5/aa', 'go/pkg/mod/example.com/m@v1', '.m2/repository/org/x'];
    for (const d of stores) {
      mkdirSync(path.join(home, d), { recursive: true });
      writeFileSync(path.join(home, d, 'host'), 'host\n');
    }
    const plant = stores.map((d) => `cat ~/${d}/host 2>/dev/null || echo "unseen ${d}"; mkdir -p ~/${d} && echo 'fn main() { std::fs::write("${canary}", "ran") }' > ~/${d}/build.rs && echo "planted ${d}"`).join('; ');
    const r = await make().run({ command: plant });
    // Inside, each store is the sandbox's own: the host's files out of sight, and writable.
    assert.equal(textOf(r).split('\n').filter((l) => /^(unseen|planted|host)/.test(l)).join('\n'), stores.map((d) => `unseen ${d}\nplanted ${d}`).join('\n'));
    // The host judges: its stores hold what they held, and nothing more.
    for (const d of stores) {
      assert.deepEqual(readdirSync(path.join(home, d)), ['host'], d);
      assert.equal(readFileSync(path.join(home, d, 'host'), 'utf8'), 'host\n');
    }
    // The next command finds what the last one wrote (a store kept between commands, beneath ~/.local/state).
    const again = await make().run({ command: `cat ~/${stores[0]}/build.rs` });
    assert.match(textOf(again), /^fn main\(\)/);
    assert.ok(existsSync(path.join(home, '.local/state/agent-bash/sandbox-caches', stores[0], 'build.rs')));
    // Control: with agentBash.sandbox.caches.shareWithHost the same write reaches the host's store.
    sandboxSettings = { ...sandboxSettings, sharedCaches: true };
    await make().run({ command: `echo shared > ~/${stores[0]}/build.rs` });
    assert.equal(readFileSync(path.join(home, stores[0], 'build.rs'), 'utf8'), 'shared\n');
  });

  it('a program a deny rule names whole is masked inside: find -exec, a here-doc shell and a script cannot run it', async () => {
    for (const f of ['a', 'b', 'c']) writeFileSync(path.join(ws, f), f);
    writeFileSync(path.join(ws, 'script.sh'), 'rm c\necho "script rc=$?"\n');
    const r = await make().run({ command: 'p=rm; find . -name a -exec $p {} \\; ; bash <<\'EOF\'\np=rm; $p b\necho "heredoc rc=$?"\nEOF\nbash script.sh; curl --version >/dev/null; echo "curl rc=$?"; git --version >/dev/null && echo git ok' });
    const out = textOf(r);
    for (const f of ['a', 'b', 'c']) assert.equal(existsSync(path.join(ws, f)), true, f);
    assert.match(out, /^agent-bash: `rm` is denied by rule `rm \*`$/m, out);
    assert.match(out, /^heredoc rc=126$/m, out);
    assert.match(out, /^script rc=126$/m, out);
    assert.match(out, /^agent-bash: `curl` is denied by rule `curl`$/m, out);
    assert.match(out, /^curl rc=126$/m, out);
    // `git push *` has arguments: the policy's job, git itself runs.
    assert.match(out, /^git ok$/m, out);
  });

  describe('limits', () => {
    it('TMPDIR is size-capped and the result says so', async () => {
      sandboxSettings.limits = { processes: 0, memoryMiB: 0, tmpMiB: 4 };
      const r = await make().run({ command: 'dd if=/dev/zero of="$TMPDIR/big" bs=1M count=16 2>&1 | head -1; echo done' });
      assert.match(textOf(r), /No space left on device/, textOf(r));
      assert.deepEqual(r.details.sandbox?.limits, ['tmp']);
      assert.ok(textOf(r).includes('hit its limit on TMPDIR size (4 MiB, agentBash.sandbox.limits.tmpdirSize)'), textOf(r));
    });

    it('processes without a cgroup (an unprivileged user): RLIMIT_NPROC inside the sandbox, named in the result', async function () {
      // Root outside a user namespace is exempt from RLIMIT_NPROC; root here gets the cgroup below.
      if (process.getuid?.() === 0 || cgroupControllers().some((c) => c.kind === 'pids')) this.skip();
      sandboxSettings.limits = { processes: 20, memoryMiB: 0, tmpMiB: 0 };
      // dash gives up on the first failed fork (bash retries for seconds).
      const r = await make().run({ command: 'sh -c \'for i in $(seq 1 60); do sleep 3 & echo started; done\' 2>&1 | sort | uniq -c' });
      assert.match(textOf(r), /^\s+1 sh: \d+: Cannot fork$/m, textOf(r));
      const started = Number(/^\s+(\d+) started$/m.exec(textOf(r))?.[1]);
      assert.ok(started > 0 && started < 20, textOf(r));
      assert.deepEqual(r.details.sandbox?.limits, ['processes'], textOf(r));
    });

    it('processes and memory: a cgroup of the command where one can be made; the result names the limit hit', async function () {
      if (cgroupControllers().length < 2) this.skip();
      sandboxSettings.limits = { processes: 40, memoryMiB: 64, tmpMiB: 0 };
      // dash gives up on the first failed fork (bash retries for seconds, then cannot even count).
      const forks = await make().run({ command: 'sh -c \'for i in $(seq 1 100); do sleep 3 & echo started; done\' 2>&1 | sort | uniq -c' });
      assert.match(textOf(forks), /^\s+1 sh: \d+: Cannot fork$/m, textOf(forks));
      const started = Number(/^\s+(\d+) started$/m.exec(textOf(forks))?.[1]);
      assert.ok(started > 0 && started < 40, textOf(forks));
      assert.deepEqual(forks.details.sandbox?.limits, ['processes']);
      const mem = await make().run({ command: 'python3 -c "a = bytearray(256 * 1024 * 1024); print(len(a))"; echo "rc=$?"' });
      assert.match(textOf(mem), /^rc=137$/m, textOf(mem));
      assert.deepEqual(mem.details.sandbox?.limits, ['memory']);
      assert.ok(textOf(mem).includes('memory (64 MiB, agentBash.sandbox.limits.memory: a process was killed)'), textOf(mem));
      // Under the limits, ordinary work is untouched.
      const ok = await make().run({ command: 'python3 -c "a = bytearray(8 * 1024 * 1024); print(len(a))"' });
      assert.equal(textOf(ok).split('\n')[0], String(8 * 1024 * 1024));
      assert.equal(ok.details.sandbox?.limits, undefined);
    });
  });
});
