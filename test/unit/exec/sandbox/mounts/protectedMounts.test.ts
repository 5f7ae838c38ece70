// The sandbox's planning parts on a real filesystem: which `.git`s and protected names get which
// mount, credential patterns, the programs deny rules mask, limit hits read from output, and the
// protected-set comparison.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { maskRefusal, planMasks, programsDeniedByRules } from '../../../../../src/exec/sandbox/mounts/denyMasks';
import { limitHitsInOutput } from '../../../../../src/exec/sandbox/kernel/limits';
import { compareSnapshots, moveAsideCreated } from '../../../../../src/exec/sandbox/mounts/protectedCheck';
import { GIT_ALWAYS_READ_ONLY, planProtected } from '../../../../../src/exec/sandbox/mounts/protectedMounts';
import { expandSecretPatterns } from '../../../../../src/exec/sandbox/mounts/secretPaths';
import { CACHE_HOME_PATHS } from '../../../../../src/exec/sandbox/sandboxPolicy';
import { confinedMover, disallowedConfigKeys } from '../../../../../src/exec/sandbox/mounts/newRepoQuarantine';
import { probeSandbox } from '../../../../../src/exec/sandbox/sandboxProbe';

describe('exec/sandbox: protected mounts and the other plans', () => {
  let dir: string;
  let ws: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-plan-'));
    ws = path.join(dir, 'ws');
    mkdirSync(ws);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const mk = (rel: string, file = false): string => {
    const p = path.join(ws, rel);
    if (file) {
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, 'gitdir: elsewhere\n');
    } else mkdirSync(p, { recursive: true });
    return p;
  };

  it('finds every .git at any depth (inside node_modules entries too), and makes the folders above nested ones mount points', () => {
    mk('.git');
    mk('a/b/c/.git');
    mk('wt/.git', true);
    mk('node_modules/dep/.git');
    mk('node_modules/dep/deeper/sub/.git');
    const plan = planProtected({ roots: [ws], workspaceRoots: [ws] });
    const rel = (list: string[]) => list.map((p) => path.relative(ws, p)).sort();
    assert.deepEqual(rel(plan.gitPaths), ['.git', 'a/b/c/.git', 'node_modules/dep/.git', 'node_modules/dep/deeper/sub/.git', 'wt/.git']);
    assert.deepEqual(rel(plan.selfBinds), ['a', 'a/b', 'a/b/c', 'node_modules', 'node_modules/dep', 'node_modules/dep/deeper', 'node_modules/dep/deeper/sub', 'wt']);
    assert.deepEqual(rel(plan.readOnly), ['.git', 'a/b/c/.git', 'node_modules/dep/.git', 'node_modules/dep/deeper/sub/.git', 'wt/.git']);
    // Absent protected folders get placeholders; absent files cannot.
    assert.deepEqual(rel(plan.placeholders), ['.agent-bash', '.claude', '.cursor', '.devcontainer', '.idea', '.vscode']);
    assert.deepEqual(plan.skipped, []);
  });

  it('git.allowWrite: .git is a writable mount point; what runs or redirects stays read-only, in submodules and worktrees too', () => {
    mk('.git/hooks');
    writeFileSync(path.join(ws, '.git', 'config'), '');
    mk('.git/modules/m/hooks');
    writeFileSync(path.join(ws, '.git', 'modules', 'm', 'HEAD'), '');
    writeFileSync(path.join(ws, '.git', 'modules', 'm', 'config'), '');
    mk('.git/worktrees/w');
    writeFileSync(path.join(ws, '.git', 'worktrees', 'w', 'gitdir'), '');
    const plan = planProtected({ roots: [ws], workspaceRoots: [ws], gitAllowWrite: true });
    assert.deepEqual(plan.selfBinds, [path.join(ws, '.git')]);
    assert.deepEqual(
      plan.readOnly.map((p) => path.relative(ws, p)).sort(),
      ['.git/config', '.git/hooks', '.git/modules/m/config', '.git/modules/m/hooks', '.git/worktrees/w/gitdir'],
    );
    assert.ok(GIT_ALWAYS_READ_ONLY.includes('commondir'));
    // No repository at the root: no `.git` placeholder, commits allowed or not (git init must work;
    // the new repository is checked after the command, newRepoQuarantine.ts).
    rmSync(path.join(ws, '.git'), { recursive: true });
    assert.equal(planProtected({ roots: [ws], workspaceRoots: [ws], gitAllowWrite: true }).placeholders.includes(path.join(ws, '.git')), false);
    assert.equal(planProtected({ roots: [ws], workspaceRoots: [ws] }).placeholders.includes(path.join(ws, '.git')), false);
  });

  it('obstacles are skipped and named: symlinks (to inside: the target is protected); a folder past the budget makes the plan read-only', () => {
    mk('real');
    symlinkSync(path.join(ws, 'real'), path.join(ws, '.vscode'));
    symlinkSync('/nope', path.join(ws, '.claude'));
    const plan = planProtected({ roots: [ws], workspaceRoots: [ws] });
    assert.ok(plan.readOnly.includes(path.join(ws, 'real')));
    assert.ok(!plan.placeholders.includes(path.join(ws, '.claude')));
    assert.deepEqual(plan.skipped.sort(), [
      `${path.join(ws, '.claude')}: a symlink to nothing; not mounted`,
      `${path.join(ws, '.vscode')}: a symlink to ${path.join(ws, 'real')}, which is mounted read-only instead (the link itself can be replaced)`,
    ]);
    for (let i = 0; i < 5; i++) mk(`d${i}`);
    const small = planProtected({ roots: [ws], workspaceRoots: [ws], dirBudget: 3 });
    assert.deepEqual(small.readOnlyBecause, [`${ws}: more than 3 folders (outside node_modules, .venv, venv…): the search for .git stopped early`]);
  });

  it('a gitdir: file pointing at a git dir elsewhere in the workspace protects that folder too', () => {
    mk('meta/sep');
    mkdirSync(path.join(ws, 'checkout'));
    writeFileSync(path.join(ws, 'checkout', '.git'), 'gitdir: ../meta/sep\n');
    const plan = planProtected({ roots: [ws], workspaceRoots: [ws] });
    assert.ok(plan.gitPaths.includes(path.join(ws, 'meta', 'sep')), plan.gitPaths.join(' '));
    assert.ok(plan.readOnly.includes(path.join(ws, 'meta', 'sep')));
    assert.ok(plan.selfBinds.includes(path.join(ws, 'meta')));
  });

  it('a folder listing is read again when its entries change, even with its mtime set back', () => {
    const sub = mk('sub');
    utimesSync(sub, 1_000_000, 1_000_000);
    assert.deepEqual(planProtected({ roots: [ws], workspaceRoots: [ws] }).gitPaths, []);
    mk('sub/x/.git');
    utimesSync(sub, 1_000_000, 1_000_000);
    assert.equal(statSync(sub).mtimeMs, 1_000_000_000);
    assert.deepEqual(planProtected({ roots: [ws], workspaceRoots: [ws] }).gitPaths, [path.join(ws, 'sub', 'x', '.git')]);
  });

  it('allowWrite opens a protected path up', () => {
    mk('.vscode');
    const plan = planProtected({ roots: [ws], workspaceRoots: [ws], opened: [path.join(ws, '.vscode')] });
    assert.ok(!plan.readOnly.includes(path.join(ws, '.vscode')));
  });

  it('credential stores by pattern; caches never include ~/.cache as a whole', () => {
    const home = path.join(dir, 'home');
    for (const rel of ['.claude.json', '.claude/x', '.config/Code/User/globalStorage/state.vscdb', '.config/Code - OSS/User/globalStorage/state.vscdb-wal', '.config/gh/hosts.yml', '.config/other/x']) {
      mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
      writeFileSync(path.join(home, rel), '');
    }
    assert.deepEqual(expandSecretPatterns(home).map((p) => path.relative(home, p)).sort(), [
      '.claude', '.claude.json', '.config/Code - OSS/User/globalStorage/state.vscdb-wal', '.config/Code/User/globalStorage/state.vscdb', '.config/gh',
    ]);
    assert.ok(!CACHE_HOME_PATHS.includes('.cache'));
    assert.ok(!CACHE_HOME_PATHS.some((p) => p.startsWith('.cache/agent-bash')));
  });

  it('deny rules that name a whole program are masked; rules with arguments and the sandbox\'s own programs are not', () => {
    const programs = programsDeniedByRules([
      { match: 'rm *', approval: 'deny' },
      { match: 'curl', approval: 'deny' },
      { match: 'git push *', approval: 'deny' },
      { match: 'wget *', approval: 'prompt' },
      { match: 'sh *', approval: 'deny' },
      { match: 'rm -rf *', approval: 'deny' },
    ]);
    assert.deepEqual(programs, [
      { program: 'rm', rule: 'rm *' },
      { program: 'curl', rule: 'curl' },
      { program: 'sh', rule: 'sh *' },
    ]);
    assert.equal(maskRefusal(programs[0]), 'agent-bash: `rm` is denied by rule `rm *`');
    const plan = planMasks(programs, '/usr/bin:/bin', path.join(dir, 'masks'));
    assert.ok(plan.masks.some((m) => m.path === realpathSync('/usr/bin/rm') && m.source === path.join(dir, 'masks', 'rm')));
    assert.ok(!plan.masks.some((m) => path.basename(m.path) === 'sh' || path.basename(m.path) === 'dash'));
    assert.deepEqual(plan.skipped, ['sh: the sandbox needs it to run commands; the rule `sh *` is applied by the policy only']);
  });

  it('moves aside a commondir created in a .git, never a file reached through a symlinked folder', () => {
    const git = mk('.git');
    writeFileSync(path.join(git, 'commondir'), '/elsewhere\n');
    const hostDir = path.join(dir, 'host');
    mkdirSync(hostDir);
    writeFileSync(path.join(hostDir, 'alternates'), 'host file\n');
    mkdirSync(path.join(git, 'objects'));
    symlinkSync(hostDir, path.join(git, 'objects', 'info'));
    const lines = moveAsideCreated([`${git}/commondir was created`, `${git}/objects/info/alternates was created`, `${ws}/.mcp.json was created`], [git]);
    assert.deepEqual(lines, [
      `${git}/commondir was created (moved aside to ${git}/commondir.agent-bash-blocked)`,
      `${git}/objects/info/alternates was created (not moved: its folder is reached through a symlink)`,
      `${ws}/.mcp.json was created`,
    ]);
    assert.equal(readFileSync(path.join(hostDir, 'alternates'), 'utf8'), 'host file\n');
    assert.equal(readFileSync(path.join(git, 'commondir.agent-bash-blocked'), 'utf8'), '/elsewhere\n');
  });

  it('quarantine renames run confined: a folder swapped for a symlink to a host folder cannot point them there', function () {
    const bwrap = probeSandbox().bwrap;
    if (!probeSandbox().sandbox || bwrap === undefined) this.skip();
    const host = path.join(dir, 'host');
    mkdirSync(host);
    writeFileSync(path.join(host, 'config'), 'host config\n');
    mkdirSync(path.join(ws, 'repo'));
    writeFileSync(path.join(ws, 'repo', 'config'), 'new repo\n');
    // What a background job swaps in after the host's check: the same name, now a symlink out.
    symlinkSync(host, path.join(ws, 'swapped'));
    const results = confinedMover(bwrap, [ws])([
      [path.join(ws, 'repo', 'config'), path.join(ws, 'repo', 'config.agent-bash-blocked')],
      [path.join(ws, 'swapped', 'config'), path.join(ws, 'swapped', 'config.agent-bash-blocked')],
    ]);
    assert.deepEqual(results, [undefined, 'the confined rename did not happen']);
    assert.equal(readFileSync(path.join(ws, 'repo', 'config.agent-bash-blocked'), 'utf8'), 'new repo\n');
    assert.equal(readFileSync(path.join(host, 'config'), 'utf8'), 'host config\n');
  });

  it('a new repository\'s config: only the keys init, clone and submodule write pass; includes, programs and unreadable files do not', function () {
    if (spawnSync('git', ['--version']).status !== 0) this.skip();
    const file = path.join(dir, 'config');
    writeFileSync(file, '[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote "origin"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n');
    assert.deepEqual(disallowedConfigKeys(file), []);
    writeFileSync(file, '[core]\n\tFSMonitor = x\n\tpager = y\n[include]\n\tpath = z\n[filter "a.b"]\n\tclean = c\n[remote "o"]\n\tuploadpack = u\n');
    assert.deepEqual(disallowedConfigKeys(file), ['core.fsmonitor', 'core.pager', 'include.path', 'filter.a.b.clean', 'remote.o.uploadpack']);
    writeFileSync(file, '[core\n\tbroken');
    assert.equal(disallowedConfigKeys(file), undefined);
  });

  it('limit hits in the output; protected changes collapse under a new .git', () => {
    assert.deepEqual(limitHitsInOutput('bash: fork: retry: Resource temporarily unavailable\n', '/t'), ['processes']);
    assert.deepEqual(limitHitsInOutput("dd: error writing '/t/big': No space left on device\n", '/t'), ['tmp']);
    assert.deepEqual(limitHitsInOutput('all fine\n', '/t'), []);
    const before = new Map([['/w/.vscode', 'absent'], ['git:/w/.git', 'present']]);
    const after = new Map([['/w/.vscode', 'absent'], ['git:/w/.git', 'present'], ['git:/w/n/.git', 'present'], ['/w/n/.git/config', 'f:1:0:0']]);
    assert.deepEqual(compareSnapshots(before, after), ['/w/n/.git was created']);
    assert.deepEqual(compareSnapshots(after, before), ['/w/n/.git was removed or moved']);
  });
});
