// What a sandboxed command created that no mount could cover, made harmless before the host's own
// programs find it. Mounts protect what exists when a command starts; a command can still make a
// new repository anywhere below a writable folder (`git init sub`, a `.git` file pointing at a
// folder it filled) and configure it in the same breath, and the host's `git status` (VS Code's Git
// extension opens repositories it finds in subfolders unasked) would run its `core.fsmonitor`, its
// hooks or its pager. It can also create the workspace's protected files that have no placeholder
// (`.mcp.json`, `.gitmodules`, `*.code-workspace`). After the command:
//   - of each new repository (and each submodule or worktree git dir inside it), a config that
//     names anything beyond the keys `git init`, `git clone` and `git submodule` write (an
//     allowlist, read by git itself: `git config --file`, which runs nothing and follows no
//     include) is moved aside to `config.agent-bash-blocked`; so is a `commondir`, and every hook
//     that is not a `.sample`;
//   - a protected file the command created at a workspace root is moved aside.
// Each rename is checked first: the folder it happens in must be, resolved, the folder named (a
// symlink on the way would point the rename at a file of the host's own), inside a writable folder.
// And the rename itself runs confined (`confinedMover`: bubblewrap with only the writable folders
// writable), so a background job that swaps a folder for a symlink between that check and the
// rename can only point it at what the sandbox may change anyway.
import { spawnSync } from 'node:child_process';
import { lstatSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { gitSensitivePaths } from './protectedMounts';
import { gitLocations } from './gitLocations';
import { WORKSPACE_PROTECTED_PATHS } from '../../../core/policy/checks/protectedPaths';
import { hostProgram } from '../../hostPrograms';
import { followableWritable, within, realOrUndefined } from '../../pathWithin';
import { renameInFolder } from './folderFd';

export { gitLocations } from './gitLocations';

/** The suffix of what was moved aside. */
export const BLOCKED_SUFFIX = '.agent-bash-blocked';

/**
 * Config keys a new repository may have (`section.key`, `*` for any subsection): what git itself
 * writes on init, clone, submodule and worktree, and harmless user settings. Nothing that names a
 * program, a hook path, another config file or a transport helper.
 */
export const NEW_REPO_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'core.repositoryformatversion', 'core.filemode', 'core.bare', 'core.logallrefupdates', 'core.ignorecase', 'core.precomposeunicode',
  'core.symlinks', 'core.autocrlf', 'core.eol', 'core.safecrlf', 'core.worktree', 'core.sparsecheckout', 'core.sparsecheckoutcone',
  'core.quotepath', 'core.longpaths',
  'extensions.objectformat', 'extensions.worktreeconfig', 'extensions.partialclone', 'extensions.refstorage', 'extensions.preciousobjects',
  'remote.*.url', 'remote.*.pushurl', 'remote.*.fetch', 'remote.*.push', 'remote.*.tagopt', 'remote.*.mirror', 'remote.*.prune',
  'remote.*.promisor', 'remote.*.partialclonefilter',
  'branch.*.remote', 'branch.*.merge', 'branch.*.rebase', 'branch.*.pushremote', 'branch.*.description',
  'submodule.*.url', 'submodule.*.active', 'submodule.*.branch',
  'user.name', 'user.email', 'init.defaultbranch', 'pull.rebase', 'pull.ff', 'push.default', 'fetch.prune', 'gc.auto',
  'lfs.repositoryformatversion', 'index.version', 'feature.manyfiles',
]);

/** `section.sub.sec.key` → `section.*.key`; `section.key` as it is. */
function keyPattern(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  return first === last ? key : `${key.slice(0, first)}.*${key.slice(last)}`;
}

/**
 * The keys of `file` outside the allowlist (empty: harmless), or undefined when git cannot read it
 * (unparseable, or no git here: then nothing tells it is harmless).
 */
export function disallowedConfigKeys(file: string): string[] | undefined {
  const git = hostProgram('git');
  if (git === undefined) return undefined;
  const r = spawnSync(git, ['config', '--file', file, '--null', '--list'], {
    cwd: '/',
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: '/nonexistent' },
    timeout: 10_000,
  });
  if (r.status !== 0 || typeof r.stdout !== 'string') return undefined;
  const bad: string[] = [];
  for (const entry of r.stdout.split('\0')) {
    if (entry === '') continue;
    const nl = entry.indexOf('\n');
    const key = nl < 0 ? entry : entry.slice(0, nl);
    if (!NEW_REPO_CONFIG_KEYS.has(keyPattern(key.toLowerCase()))) bad.push(key);
  }
  return bad;
}

/**
 * Renames `p` to `p.agent-bash-blocked` when its folder is, resolved, what its path says and lies
 * in a writable folder; the line says what happened.
 */
/** Renames each `[from, to]`; per pair an error message, or undefined when it was renamed. */
export type Mover = (moves: ReadonlyArray<readonly [string, string]>) => Array<string | undefined>;

/** Renames per confined process (a look with more runs more of them: none is left unmoved for a count). */
export const MAX_MOVES = 500;
/** Configs read with git at most per look; past it a new repository's config is moved aside unread. */
export const MAX_CONFIG_CHECKS = 100;

const MOVE_SCRIPT = 'while [ $# -gt 1 ]; do mv -n -T -- "$1" "$2" 2>/dev/null; shift 2; done';

/**
 * The mover quarantine uses: one `mv -n -T` per pair, all in one process under bubblewrap with the
 * root read-only and only `writable` writable, no network, no capabilities.
 */
export function confinedMover(bwrap: string, writable: readonly string[]): Mover {
  return (moves) => {
    if (moves.length === 0) return [];
    // By their real paths, parents first: bwrap cannot mount onto a destination reached through a
    // symlink (a symlinked allowWrite or home), and one failed bind fails the whole batch.
    // Never through a symlink inside another writable folder (followableWritable).
    const real = followableWritable(writable).sort((a, b) => a.split('/').length - b.split('/').length);
    const binds = real.flatMap((w) => ['--bind', w, w]);
    const r = spawnSync(
      bwrap,
      ['--ro-bind', '/', '/', ...binds, '--dev', '/dev', '--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--die-with-parent', '--cap-drop', 'ALL',
        '--', '/bin/sh', '-c', MOVE_SCRIPT, 'sh', ...moves.flat()],
      { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' }, timeout: 30_000, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const why = r.error ? r.error.message : 'the confined rename did not happen';
    return moves.map(([from, to]) => (!lstatOrUndefined(from) && lstatOrUndefined(to) ? undefined : why));
  };
}

function lstatOrUndefined(p: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** What to move aside, collected first and renamed together. */
class Moves {
  readonly lines: string[] = [];
  private readonly pending: Array<{ p: string; why: string }> = [];
  private readonly seen = new Set<string>();
  constructor(private readonly writable: readonly string[]) {}

  add(p: string, why: string): void {
    // Once per path (a new git dir's config is also a path made in it).
    if (this.seen.has(p)) return;
    this.seen.add(p);
    const dir = path.dirname(p);
    const real = realOrUndefined(dir);
    const realWritable = followableWritable(this.writable);
    if (real === undefined || !realWritable.some((w) => within(real, w))) this.lines.push(`${p} ${why} (not moved: its folder is not in a writable folder)`);
    // The folder itself as named: every component on the way a real folder, none a symlink. Where
    // one is a symlink in a writable folder, that symlink is moved aside instead (a rename never
    // follows it): the path no longer leads there, and nothing of the host's is renamed.
    else if (!plainPath(dir)) {
      const link = firstSymlink(dir);
      const linkDir = link === undefined ? undefined : path.dirname(link);
      if (link !== undefined && linkDir !== undefined && plainPath(linkDir) && realWritable.some((w) => within(linkDir, w)) && !this.seen.has(link)) {
        this.seen.add(link);
        this.pending.push({ p: link, why: `leads to ${p}, which ${why}` });
      } else this.lines.push(`${p} ${why} (not moved: its folder is reached through a symlink)`);
    } else this.pending.push({ p, why });
  }

  run(mover: Mover): string[] {
    const results: Array<string | undefined> = [];
    // A name moved aside before is kept: the next one of the same path goes beside it (`x.2.agent-bash-blocked`…).
    const targets = this.pending.map(({ p }) => asideName(p));
    for (let i = 0; i < this.pending.length; i += MAX_MOVES) {
      results.push(...mover(this.pending.slice(i, i + MAX_MOVES).map(({ p }, j) => [p, targets[i + j]] as const)));
    }
    const realWritable = followableWritable(this.writable);
    this.pending.forEach(({ p, why }, i) => {
      const failed = results[i];
      if (failed === undefined) {
        this.lines.push(`${p} ${why} (moved aside to ${targets[i]})`);
        return;
      }
      // The confined mover failed (bwrap could not start, a bind it could not make, a name taken
      // already): the file is renamed on the host all the same, through a descriptor of its folder
      // checked to be the real folder inside a writable folder (folderFd.ts), so a swap on the way
      // can only move what the sandbox may change anyway. Not a refusal of later commands instead:
      // the host's own git (VS Code's Git extension) reads the file right after this command, before
      // any later one. Only where this fails too is the file named as not moved.
      if (lstatOrUndefined(p) === undefined) {
        this.lines.push(`${p} ${why} (not moved: ${failed})`);
        return;
      }
      try {
        const to = renameInFolder(p, targets[i], realWritable);
        this.lines.push(`${p} ${why} (moved aside to ${to})`);
      } catch (err) {
        this.lines.push(`${p} ${why} (not moved: ${failed}; ${err instanceof Error ? err.message : String(err)})`);
      }
    });
    return this.lines;
  }
}

/** Where `p` is moved aside: `p.agent-bash-blocked`, or beside an earlier one (`p.2.agent-bash-blocked`…) when that is taken. */
function asideName(p: string): string {
  if (lstatOrUndefined(`${p}${BLOCKED_SUFFIX}`) === undefined) return `${p}${BLOCKED_SUFFIX}`;
  for (let n = 2; n < 1000; n++) if (lstatOrUndefined(`${p}.${n}${BLOCKED_SUFFIX}`) === undefined) return `${p}.${n}${BLOCKED_SUFFIX}`;
  return `${p}.${Date.now()}${BLOCKED_SUFFIX}`;
}

/** The first component of the absolute `dir` that is a symlink (undefined: none is). */
function firstSymlink(dir: string): string | undefined {
  let at = '/';
  for (const part of dir.split('/').filter(Boolean)) {
    at = path.join(at, part);
    if (lstatOrUndefined(at)?.isSymbolicLink()) return at;
  }
  return undefined;
}

/** Every component of the absolute `dir` is a folder, not a symlink. */
function plainPath(dir: string): boolean {
  let at = '/';
  for (const part of dir.split('/').filter(Boolean)) {
    at = path.join(at, part);
    try {
      const st = lstatSync(at);
      if (st.isSymbolicLink() || !st.isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function emptyOrAbsent(p: string): boolean {
  try {
    return lstatSync(p).isDirectory() && readdirSync(p).length === 0;
  } catch {
    return true;
  }
}

function listDirOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** What makes a new git dir run something, each moved aside; one line per path moved (or not). */
function neutralizeGitDir(gitDir: string, moves: Moves, budget: { checks: number }): void {
  for (const p of gitSensitivePaths(gitDir)) neutralizePath(p, moves, budget);
}

/** One of a git dir's sensitive paths (gitSensitivePaths), moved aside when it makes git run something. */
function neutralizePath(p: string, moves: Moves, budget: { checks: number }): void {
  const name = path.basename(p);
  let st;
  try {
    st = lstatSync(p);
  } catch {
    return;
  }
  if (name === 'modules') {
    // Listed only when it holds too many submodule git dirs to check one by one (protectedMounts.ts).
    moves.add(p, 'holds more submodule git dirs than are checked one by one');
  } else if (name === 'hooks') {
    if (!st.isDirectory()) {
      moves.add(p, 'is not a hooks folder');
      return;
    }
    let hooks: string[] = [];
    try {
      hooks = readdirSync(p);
    } catch {
      // Unreadable: nothing git could run either.
    }
    for (const hook of hooks) if (!hook.endsWith('.sample') && !hook.endsWith(BLOCKED_SUFFIX)) moves.add(path.join(p, hook), 'is a hook of a new repository');
  } else if (name === 'config' || name === 'config.worktree') {
    // Past the budget (a command that made a thousand repositories) nothing is read: moved aside.
    if (budget.checks-- <= 0) {
      moves.add(p, `is one config too many to read (over ${MAX_CONFIG_CHECKS} new ones)`);
      return;
    }
    const bad = st.isFile() ? disallowedConfigKeys(p) : undefined;
    if (bad === undefined) moves.add(p, 'is a config git cannot read');
    else if (bad.length > 0) moves.add(p, `sets ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? '…' : ''}`);
  } else if (name === 'commondir' && path.basename(path.dirname(path.dirname(p))) !== 'worktrees') {
    // A main git dir never has one (a linked worktree's under worktrees/ points back at its own).
    moves.add(p, 'redirects a new repository');
  }
}

/**
 * After a command: `created` are the paths the protected check found created (`compareSnapshots`),
 * `gitPaths` every `.git` (and gitdir target) found now. New repositories are neutralized and
 * protected files without a placeholder moved aside; the lines say what was done.
 */
export function quarantineCreated(
  created: readonly string[],
  gitPaths: readonly string[],
  workspaceRoots: readonly string[],
  writable: readonly string[],
  mover: Mover,
  /** Absent paths a git config named (gitConfigPaths.ts): one a command made is moved aside. */
  watched: readonly string[] = [],
): string[] {
  const moves = new Moves(writable);
  const budget = { checks: MAX_CONFIG_CHECKS };
  const done = new Set<string>();
  for (const p of created) {
    // Whatever it is now (an empty folder too: claimed now, it would be swapped for a program later).
    if (watched.includes(p) && lstatOrUndefined(p) !== undefined) {
      moves.add(p, 'is named by a git config as code or config git runs or reads');
      continue;
    }
    // A path made in a git dir that was there before (one whose config, hooks… a mount could
    // not cover: a config it lacked, a workspace folder that is a git dir): checked as in a new one.
    // (In a `.git` that commits may write, the rest is moved aside by protectedCheck.ts moveAsideCreated.)
    const owner = gitPaths.find((g) => p !== g && within(p, g) && lstatOrUndefined(g)?.isDirectory());
    if (owner !== undefined && !gitPaths.includes(p) && path.basename(p) !== '.git' && (path.basename(owner) !== '.git' || p === path.join(owner, 'config'))) {
      const sensitive = gitSensitivePaths(owner);
      const hook = sensitive.find((s) => path.basename(s) === 'hooks' && path.dirname(p) === s);
      if (hook !== undefined) {
        if (!p.endsWith('.sample') && !p.endsWith(BLOCKED_SUFFIX)) moves.add(p, 'is a hook the command made');
      } else if (sensitive.includes(p) && writable.some((w) => within(realOrUndefined(p) ?? p, realOrUndefined(w) ?? w))) neutralizePath(p, moves, budget);
      if (hook !== undefined || sensitive.includes(p)) continue;
    }
    if (gitPaths.includes(p) || path.basename(p) === '.git') {
      // By name, then by git itself (gitLocations): never a parse of our own of `gitdir:` files.
      const st = lstatOrUndefined(p);
      if (st === undefined) continue;
      // A folder is checked as a git dir itself; git is asked where it leads only when it may lead
      // elsewhere (a `commondir`), as for every entry that is no folder.
      const where = st.isDirectory() && !lstatOrUndefined(path.join(p, 'commondir')) ? undefined : gitLocations(p);
      // A `.git` that is no folder and that git cannot place: in doubt, the pointer itself goes.
      if (where === undefined && !st.isDirectory()) {
        moves.add(p, 'points at a repository git cannot tell');
        continue;
      }
      const dirs = [...(st.isDirectory() ? [p] : []), ...(where ? [where.gitDir, where.commonDir] : [])];
      // Each linked worktree's git dir inside these names a common dir of its own: as git says.
      for (const d of [...dirs]) for (const wt of listDirOf(path.join(d, 'worktrees'))) {
        const w = gitLocations(path.join(d, 'worktrees', wt));
        if (w) dirs.push(w.gitDir, w.commonDir);
      }
      for (const gitDir of dirs) {
        // A git dir outside the writable folders is the host's own: the command could not write it.
        const real = realOrUndefined(gitDir);
        if (real === undefined || done.has(real)) continue;
        done.add(real);
        if (!writable.some((w) => within(real, realOrUndefined(w) ?? w))) continue;
        neutralizeGitDir(real, moves, budget);
      }
      continue;
    }
    const root = workspaceRoots.find((r) => path.dirname(p) === r);
    if (root === undefined) continue;
    const name = path.basename(p);
    const protectedFile = (WORKSPACE_PROTECTED_PATHS.includes(name) || name.endsWith('.code-workspace')) && !name.endsWith(BLOCKED_SUFFIX);
    // An empty folder is the placeholder bwrap leaves behind: nothing there.
    if (protectedFile && !emptyOrAbsent(p)) moves.add(p, 'is a protected name the command created');
  }
  return moves.run(mover);
}

/**
 * Protected files (and symlinks) the command changed although no mount should have let it (a hard
 * link the plan did not find, a shell whose mounts predate them): moved aside like what it created,
 * not only named, so the host's next git or editor does not read what it wrote. Returns one line
 * per path, by path.
 */
export function quarantineChanged(changed: readonly string[], writable: readonly string[], mover: Mover): Map<string, string> {
  const moves = new Moves(writable);
  const out = new Map<string, string>();
  for (const p of changed) {
    // A git config that names nothing git would run or read (the allowlist of new repositories, as
    // git reads it) stays: your own git writes such keys too (`git push -u`, `git remote add`).
    const name = path.basename(p);
    if ((name === 'config' || name === 'config.worktree') && lstatOrUndefined(p)?.isFile() === true && disallowedConfigKeys(p)?.length === 0) {
      out.set(p, `${p} was changed (left in place: it sets nothing git runs or reads)`);
      continue;
    }
    moves.add(p, 'was changed');
  }
  for (const line of moves.run(mover)) out.set(line.slice(0, line.indexOf(' was changed')), line);
  return out;
}
