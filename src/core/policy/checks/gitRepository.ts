// Which repository an allowed `git` reads. A repository's own config can name programs that the
// read forms run: `diff.external` (git diff), `filter.<driver>.clean` (git status, git diff on a
// changed file), `diff.<driver>.textconv` (git log -p, git show). The workspace's own repository has
// its config guarded (protectedPaths.ts: a write to `.git/config` is critical), and a repository
// outside the workspace is not the agent's to write; a repository nested inside the workspace (a
// fixture, an unpacked archive, `node_modules/x/.git`) is neither. git finds its repository by
// walking up from the directory it runs in (the cwd, then each `-C`): when that lands on a `.git`
// inside the workspace that is not at a workspace root, on a directory that is itself a git
// directory (a bare repository, `evil.git/`) other than a root's own `.git`, or a root's `.git` file
// points inside the workspace elsewhere than its own `.git`, the command asks. `--git-dir`/`--work-tree` ask on their
// own (shellNormalize.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Segment } from '../policyContracts';
import { shown } from '../policyReasons';
import { basename } from '../analysis/shellNormalize';
import { isInside, resolvePathWord } from './workspaceScope';

export const GIT_REPOSITORY = {
  nested: (text: string, index: number, repo: string) =>
    `\`${shown(text)}\` in segment ${index} reads the repository at \`${repo}\`, nested inside the workspace: its config can name programs for git to run (diff.external, filter and textconv drivers)`,
  bare: (text: string, index: number, repo: string) =>
    `\`${shown(text)}\` in segment ${index} reads the bare repository at \`${repo}\`, inside the workspace: its config can name programs for git to run (diff.external, filter and textconv drivers)`,
  pointer: (text: string, index: number, gitFile: string, target: string) =>
    `\`${shown(text)}\` in segment ${index} reads the repository \`${gitFile}\` points to (${target}), inside the workspace: its config can name programs for git to run`,
} as const;

/** The real path of `p`, or `p` resolved where it cannot be had (absent, a loop). */
export function real(p: string): string {
  // A missing path costs no exception (realpath's throw is the slow part); realpath fails there too.
  if (!fs.existsSync(p)) return path.resolve(p);
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * True when `dir` is itself a git directory, as git's `is_git_directory` reads one: a `HEAD`, and
 * `objects/` and `refs/` (or a `commondir` file, a linked worktree's git directory). Read loosely:
 * a `HEAD` git would reject still counts, so the command asks.
 */
function isGitDirectory(dir: string): boolean {
  const has = (name: string): boolean => fs.statSync(path.join(dir, name), { throwIfNoEntry: false }) !== undefined;
  return has('HEAD') && ((has('objects') && has('refs')) || has('commondir'));
}

/**
 * What git would find from `start`: the directory holding a `.git` entry (with that entry's
 * stat), or a directory that is itself a git directory (`bare`), walking up as git does.
 */
function discover(start: string): { top: string; isFile: boolean; bare?: boolean } | undefined {
  let dir = start;
  for (;;) {
    const st = fs.statSync(path.join(dir, '.git'), { throwIfNoEntry: false });
    if (st) return { top: dir, isFile: st.isFile() };
    if (isGitDirectory(dir)) return { top: dir, isFile: false, bare: true };
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Why an allowed `git` segment reads a repository whose config the workspace does not guard, or undefined. */
export function nestedRepository(seg: Segment, index: number, cwd: string, workspaceRoots: readonly string[]): string | undefined {
  if (basename(seg.argv.at(0) ?? '') !== 'git') return undefined;
  let start = real(cwd);
  for (const dir of seg.optionPaths ?? []) start = real(resolvePathWord(dir, start));
  const roots = workspaceRoots.map(real);
  const found = discover(start);
  const text = seg.text || seg.source;
  if (!found || !isInside(found.top, roots)) return undefined;
  if (found.bare) {
    // A git directory inside a root's own `.git` (the root's, or a submodule's under
    // `.git/modules/`) is guarded with it; any other is the workspace's content.
    if (isInside(found.top, roots.map((r) => path.join(r, '.git')))) return undefined;
    return GIT_REPOSITORY.bare(text, index, found.top);
  }
  const gitEntry = path.join(found.top, '.git');
  if (!roots.includes(found.top)) return GIT_REPOSITORY.nested(text, index, gitEntry);
  if (!found.isFile) return undefined;
  // A worktree or submodule: `.git` is a file naming the git directory.
  let target: string;
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(gitEntry, 'utf8'));
    if (!m) return undefined; // git refuses such a `.git` too
    target = real(path.resolve(found.top, m[1]));
  } catch {
    return undefined;
  }
  if (isInside(target, roots) && !isInside(target, [gitEntry])) return GIT_REPOSITORY.pointer(text, index, gitEntry, target);
  return undefined;
}
