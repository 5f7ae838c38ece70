// The plan's view of git dirs that have no `.git` entry, of where repositories lead (a store of the
// sandbox's own included), and of the paths a git config names, on a real filesystem (git itself
// is asked where pointers lead). The host-judged runs are in security/sandbox/gitDirClasses.test.ts.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { confineArgs } from '../../../../../src/exec/sandbox/bwrapArgs';
import { compareSnapshots } from '../../../../../src/exec/sandbox/mounts/protectedCheck';
import { gitDirShaped, planProtected } from '../../../../../src/exec/sandbox/mounts/protectedMounts';
import { DEFAULT_SANDBOX_SETTINGS, resolveFsPolicy } from '../../../../../src/exec/sandbox/sandboxPolicy';

describe('exec/sandbox: git dirs without a .git entry and where repositories lead, as planned', () => {
  let dir: string;
  let ws: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-gitdirplan-'));
    ws = path.join(dir, 'ws');
    mkdirSync(ws);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const file = (p: string, text: string): void => {
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  };
  /** A folder git takes as a git dir: HEAD and refs/ (objects/ too). */
  const shaped = (p: string): void => {
    mkdirSync(path.join(p, 'refs', 'heads'), { recursive: true });
    mkdirSync(path.join(p, 'objects'), { recursive: true });
    file(path.join(p, 'HEAD'), 'ref: refs/heads/main\n');
  };
  const rel = (list: readonly string[]): string[] => list.map((p) => path.relative(ws, p)).sort();

  it('what git takes as a git dir by name: a HEAD and a refs or a commondir', () => {
    assert.equal(gitDirShaped(new Set(['HEAD', 'refs'])), true);
    assert.equal(gitDirShaped(new Set(['HEAD', 'commondir'])), true);
    assert.equal(gitDirShaped(new Set(['HEAD', 'objects'])), false);
    assert.equal(gitDirShaped(new Set(['refs', 'objects', 'config'])), false);
  });

  it('a bare repository, a worktree git dir and one in a node_modules entry are git dirs: read-only whole; the workspace folder itself: what runs only', () => {
    shaped(path.join(ws, 'pkg'));
    file(path.join(ws, 'pkg', 'config'), '[core]\n');
    file(path.join(ws, 'meta', 'wt', 'HEAD'), 'ref: refs/heads/main\n');
    file(path.join(ws, 'meta', 'wt', 'commondir'), '../../pkg\n');
    shaped(path.join(ws, 'node_modules', 'dep'));
    shaped(ws);
    file(path.join(ws, 'config'), '[core]\n');
    const plan = planProtected({ roots: [ws], workspaceRoots: [ws] });
    assert.deepEqual(rel(plan.gitPaths), ['', 'meta/wt', 'node_modules/dep', 'pkg']);
    assert.deepEqual(rel(plan.readOnly), ['config', 'meta/wt', 'node_modules/dep', 'pkg']);
    assert.ok(plan.placeholders.includes(path.join(ws, 'hooks')), plan.placeholders.join('\n'));
    assert.ok(!plan.selfBinds.includes(ws));
    assert.deepEqual(plan.readOnlyBecause, []);
  });

  it("a .git pointer into a writable folder that is no scanned root (a package store of the sandbox's own): that git dir is read-only, bound where a command sees it", () => {
    const store = path.join(dir, 'store');
    const home = path.join(dir, 'home');
    const target = path.join(store, '.npm', '_cacache', 'evil');
    shaped(target);
    mkdirSync(path.join(home, '.npm', '_cacache'), { recursive: true });
    file(path.join(ws, '.git'), `gitdir: ${target}\n`);
    const without = planProtected({ roots: [ws], workspaceRoots: [ws] });
    assert.deepEqual(without.readOnly, [path.join(ws, '.git')]);
    const plan = planProtected({ roots: [ws], workspaceRoots: [ws], writable: [path.join(store, '.npm', '_cacache')] });
    assert.deepEqual(plan.readOnly, [path.join(ws, '.git'), target]);
    const ctx = { home, workspaceRoots: [ws], tmpDir: path.join(dir, 'tmp'), cacheStore: store };
    for (const readOnlyBecause of [[], ['a budget passed']]) {
      const fs = resolveFsPolicy(DEFAULT_SANDBOX_SETTINGS, { ...ctx, protectedPlan: { ...plan, readOnlyBecause } });
      assert.deepEqual(fs.readOnlyBinds, [{ source: target, dest: path.join(home, '.npm', '_cacache', 'evil') }]);
      assert.ok(!fs.denyWrite.includes(target));
      const args = confineArgs({ fs }, ['true']);
      const at = args.findIndex((a, i) => a === '--ro-bind' && args[i + 1] === target);
      assert.deepEqual(args.slice(at, at + 3), ['--ro-bind', target, path.join(home, '.npm', '_cacache', 'evil')]);
    }
  });

  it('a common dir a worktree git dir leads to (no HEAD of its own: no git dir by name) is protected, as git says', () => {
    const common = path.join(ws, 'evil');
    mkdirSync(path.join(common, 'refs'), { recursive: true });
    mkdirSync(path.join(common, 'objects'), { recursive: true });
    file(path.join(common, 'config'), '[core]\n\tbare = false\n');
    file(path.join(ws, 'meta', 'worktrees', 'wt', 'HEAD'), 'ref: refs/heads/main\n');
    file(path.join(ws, 'meta', 'worktrees', 'wt', 'commondir'), '../../../evil\n');
    file(path.join(ws, 'wt', '.git'), `gitdir: ${path.join(ws, 'meta', 'worktrees', 'wt')}\n`);
    const plan = planProtected({ roots: [ws], workspaceRoots: [ws] });
    assert.deepEqual(rel(plan.gitPaths), ['evil', 'meta/worktrees/wt', 'wt/.git']);
    assert.deepEqual(rel(plan.readOnly), ['evil', 'meta/worktrees/wt', 'wt/.git']);
  });

  it('a path a git config names as a program: a folder there is a mount point and watched, a symlink is watched, an absent one is watched', () => {
    mkdirSync(path.join(ws, 'tools', 'fsmon.sh'), { recursive: true });
    symlinkSync('/nonexistent', path.join(ws, 'pager.sh'));
    const refs = [
      { path: path.join(ws, 'tools', 'fsmon.sh'), key: 'core.fsmonitor', pathLike: true },
      { path: path.join(ws, 'pager.sh'), key: 'core.pager', pathLike: true },
      { path: path.join(ws, 'ed.sh'), key: 'core.editor', pathLike: true },
    ];
    const plan = planProtected({ roots: [ws], workspaceRoots: [ws], home: dir, gitConfig: () => refs });
    assert.deepEqual(rel(plan.watched), ['ed.sh', 'pager.sh', 'tools/fsmon.sh']);
    assert.deepEqual(rel(plan.selfBinds), ['tools', 'tools/fsmon.sh']);
  });

  it('a new folder that is a git dir by itself does not hide the other changes beneath it; a new .git does', () => {
    const before = new Map([['/w/.mcp.json', 'absent']]);
    const after = new Map([['/w/.mcp.json', 'f:1:2:3'], ['git:/w', 'present'], ['/w/config', 'f:4:5:6'], ['git:/w/n/.git', 'present'], ['/w/n/.git/config', 'f:7:8:9']]);
    assert.deepEqual(compareSnapshots(before, after), ['/w/.mcp.json was created', '/w was created', '/w/config was created', '/w/n/.git was created']);
  });
});
