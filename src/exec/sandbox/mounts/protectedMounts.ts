// Room exec/sandbox/mounts/: what the sandbox's mounts hide or keep read-only, and the check after a run.
// What a sandboxed command must not change in the folders it may write to, as mounts: every `.git`
// (directory or `gitdir:` file) at any depth, the workspace's protected names (`.vscode`, `.claude`,
// `.mcp.json`…), and every other hard link of a protected file. Mount points cannot be renamed or
// removed (EBUSY), so each `.git` is mounted onto itself and so is every folder between a workspace
// root and a nested repository: `mv .git x`, `mv sub x` then a new `sub/.git` fail. A protected folder
// that does not exist yet gets an empty read-only one in its place. What cannot be mounted (a
// symlink, a socket…) is skipped and named, never a reason for the command not to run. Every budget
// (folders searched, mounts, configs read, files checked for hard links) fails closed: past one, the
// plan says so (`readOnlyBecause`) and the command gets the folders it covers read-only (sandboxPolicy.ts).
import { lstatSync, readdirSync, readFileSync, realpathSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { WORKSPACE_PROTECTED_PATHS } from '../../../core/policy/checks/protectedPaths';
import { FOLDER_KEYS, gitConfigReferences, type ConfigReference } from './gitConfigPaths';
import { cachedGitLocations } from './gitLocations';
import { within } from '../../pathWithin';
import { detachFile } from './folderFd';

/** Protected names that are folders: where absent, an empty read-only folder is mounted in their place. */
export const PROTECTED_DIR_NAMES: ReadonlySet<string> = new Set(['.vscode', '.idea', '.devcontainer', '.agent-bash', '.claude', '.cursor']);

/**
 * Inside a `.git` that commits may write (`agentBash.sandbox.git.allowWrite`), what stays read-only:
 * what makes git run a program or read another repository's metadata.
 */
export const GIT_ALWAYS_READ_ONLY = ['config', 'config.worktree', 'hooks', 'commondir', 'objects/info/alternates', 'info/attributes'];

/** Folders walked past for hard links (huge, generated); searched for `.git` only (walk). */
export const SKIPPED_TREES: ReadonlySet<string> = new Set(['node_modules', '.venv', 'venv', '__pycache__', '.tox', '.mypy_cache', '.pytest_cache', 'target', '.gradle', '.next', '.cache']);

/** Folders read at most per scan; past it the scan stops and the scanned folders are read-only for the command. */
export const SCAN_DIR_BUDGET = 20_000;
/** Folders inside SKIPPED_TREES searched for `.git` at most before a command. */
export const SKIPPED_SCAN_BUDGET = 5_000;
/**
 * …and after one (the look that quarantines a repository a command made there). Bounded so a large
 * `node_modules` does not cost every command: 50,000 folders took 0.35 s more per CLI run unbounded
 * (an lstat each). Past it, a repository deeper in a skipped tree is not looked at: the host would
 * have to run git inside that folder (docs/SANDBOX.md).
 */
export const SKIPPED_AFTER_BUDGET = 20_000;
/** Mounts at most (each costs bubblewrap and the kernel time at every start); past it the scanned folders are read-only for the command. */
export const MOUNT_BUDGET = 400;
/** Files of a protected path checked for other hard links; past it the scanned folders are read-only for the command. */
export const LINK_CHECK_BUDGET = 20_000;

export interface ProtectedPlan {
  /** Folders bound read-write onto themselves (mount points: cannot be renamed), parents first. */
  selfBinds: string[];
  /** Existing paths bound read-only onto themselves. */
  readOnly: string[];
  /** Absent protected folders: an empty read-only folder in their place. */
  placeholders: string[];
  /** Every `.git` found (directories and files). */
  gitPaths: string[];
  /** What was not protected, and why (one line each). */
  skipped: string[];
  /**
   * Absent paths a git config names as code or config (gitConfigPaths.ts): no mount can stand
   * there, so one a command makes is moved aside after it (newRepoQuarantine.ts).
   */
  watched: string[];
  /**
   * Why the plan cannot protect what it should (a budget was passed, git could not read a config):
   * non-empty, the folders it covers are bound read-only for the command (sandboxPolicy.ts), never
   * writable with part of their protection missing. One line each.
   */
  readOnlyBecause: string[];
}

export interface PlanOptions {
  /** Folders the command may write to that are scanned (the workspace folders, allowWrite). */
  roots: readonly string[];
  /** The workspace folders: the protected names are looked for there. */
  workspaceRoots: readonly string[];
  /** `agentBash.sandbox.git.allowWrite`. */
  gitAllowWrite?: boolean;
  /** Paths the user opened up (allowWrite): not protected. */
  opened?: readonly string[];
  /**
   * Every folder a command may write that outlives it (the roots, TMPDIR, the sandbox's own package
   * stores…; `roots` when absent): a git dir or common dir a repository leads to there is protected
   * (read-only whole) like one in the roots.
   */
  writable?: readonly string[];
  dirBudget?: number;
  /**
   * Search every folder however many (the look after a command: a repository made past the budget
   * is found all the same); past the budget the plan is still read-only (`readOnlyBecause`).
   */
  searchAll?: boolean;
  /** The home directory git expands `~` in and reads the global config from (absent: git's config is not read). */
  home?: string;
  /** How the config of a work tree is read (tests); gitConfigPaths.ts by default. Undefined: git could not read it. */
  gitConfig?: (cwd: string, home: string) => ConfigReference[] | undefined;
  /** Folders inside SKIPPED_TREES searched at most (tests); SKIPPED_SCAN_BUDGET by default. */
  skippedBudget?: number;
  /** Mounts at most (tests); MOUNT_BUDGET by default. */
  mountBudget?: number;
  /** Protected files checked for hard links at most (tests); LINK_CHECK_BUDGET by default. */
  linkBudget?: number;
}

/** Work trees whose git config is read at most per plan; past it the scanned folders are read-only for the command. */
export const CONFIG_READ_BUDGET = 100;
/** Pointers git is asked about (where a repository's git dir and common dir are) at most per plan, beyond those cached; past it the scanned folders are read-only. */
export const LOCATE_BUDGET = 200;

function lstat(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

interface Walk {
  /** Every `.git`, and every folder git takes as a git dir by itself (gitDirShaped). */
  gits: string[];
  /** Regular files with more than one link, by `dev:ino`. */
  linked: Map<string, string[]>;
  truncated: boolean;
}

/**
 * A folder's listing as the walk needs it, kept while the folder's inode and ctime stay the same
 * (ctime, not mtime: a command can set a folder's mtime back after adding to it, never its ctime).
 */
interface Listing {
  ino: number;
  ctimeMs: number;
  hasGit: boolean;
  /** The folder is one git takes as a git dir by itself (gitDirShaped). */
  gitDir: boolean;
  dirs: string[];
}

/**
 * What git needs to take a folder as a git dir by itself, with no `.git` in it (setup.c
 * is_git_directory: a HEAD, and refs/ and objects/ in the folder or in the common dir its
 * `commondir` names): a bare repository, a worktree's or a submodule's git dir. By name only, a
 * little wider than git (a HEAD and a `refs` or a `commondir`, whatever they hold): in doubt, it is one.
 */
export function gitDirShaped(names: { has(name: string): boolean }): boolean {
  return names.has('HEAD') && (names.has('refs') || names.has('commondir'));
}

/** Listings by folder: a folder whose entries did not change is not read again (lstat, not readdir). */
const listings = new Map<string, Listing>();
const MAX_LISTINGS = 100_000;

function listing(dir: string): Listing | undefined {
  const st = lstat(dir);
  if (!st?.isDirectory()) {
    listings.delete(dir);
    return undefined;
  }
  const cached = listings.get(dir);
  if (cached && cached.ino === st.ino && cached.ctimeMs === st.ctimeMs) return cached;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const out: Listing = { ino: st.ino, ctimeMs: st.ctimeMs, hasGit: false, gitDir: gitDirShaped(new Set(entries.map((e) => e.name))), dirs: [] };
  for (const e of entries) {
    if (e.name === '.git') out.hasGit = true;
    else if (e.isDirectory()) out.dirs.push(e.name);
  }
  if (listings.size >= MAX_LISTINGS) listings.clear();
  listings.set(dir, out);
  return out;
}

/**
 * Breadth-first over `root`, not into `.git` or symlinks. SKIPPED_TREES are searched for `.git` only
 * (no hard links), their folders counted against `deep` and not the main budget; past `deep`, only
 * each entry's own `.git` of a skipped folder, and whether it is a git dir itself, is looked for
 * (lstats, no listing), nothing deeper. A folder git takes as a git dir is listed and walked on (its
 * work tree may be itself: `core.worktree = .`).
 */
function walk(root: string, budget: { dirs: number }, wantLinks: boolean, deep: { dirs: number } = { dirs: 0 }): Walk {
  const out: Walk = { gits: [], linked: new Map(), truncated: false };
  const queue: Array<{ dir: string; skipTree: boolean; inside?: boolean }> = [{ dir: root, skipTree: false }];
  for (let next = 0; next < queue.length; next++) {
    const { dir, skipTree, inside } = queue[next];
    if (inside !== true && budget.dirs-- <= 0) {
      out.truncated = true;
      break;
    }
    const list = listing(dir);
    if (!list) continue;
    if (list.gitDir) out.gits.push(dir);
    if (list.hasGit) out.gits.push(`${dir}/.git`);
    for (const name of list.dirs) {
      const p = `${dir}/${name}`;
      if (skipTree) {
        if (deep.dirs > 0) {
          deep.dirs--;
          queue.push({ dir: p, skipTree: true, inside: true });
        } else if (inside !== true) {
          // Past the budget, as much as ever: each entry's own `.git` and whether it is a git dir, nothing deeper.
          const git = `${p}/.git`;
          if (lstat(git)) out.gits.push(git);
          if (lstat(`${p}/HEAD`) && gitDirShaped({ has: (n) => lstat(`${p}/${n}`) !== undefined })) out.gits.push(p);
        }
      } else queue.push({ dir: p, skipTree: SKIPPED_TREES.has(name) });
    }
    if (wantLinks && !skipTree) {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (!e.isFile()) continue;
        const p = `${dir}/${e.name}`;
        const st = lstat(p);
        if (st && st.nlink > 1) {
          const key = `${st.dev}:${st.ino}`;
          out.linked.set(key, [...(out.linked.get(key) ?? []), p]);
        }
      }
    }
  }
  return out;
}

/** The files under `p` (itself when a file), at most `budget.files` in all (past it: `budget.over`). */
function filesUnder(p: string, budget: { files: number; over: boolean }): string[] {
  const st = lstat(p);
  if (!st) return [];
  if (st.isFile()) return [p];
  if (!st.isDirectory()) return [];
  const out: string[] = [];
  const queue = [p];
  while (queue.length > 0) {
    const dir = queue.shift() as string;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const child = path.join(dir, e.name);
      if (e.isDirectory()) {
        // A repository's objects are hard-linked by `git clone --local`: they are data, not code.
        if (e.name !== 'objects') queue.push(child);
      } else if (e.isFile()) out.push(child);
      if (out.length > budget.files) {
        budget.over = true;
        return out;
      }
    }
  }
  budget.files -= out.length;
  return out;
}

export function planProtected(opts: PlanOptions): ProtectedPlan {
  const plan: ProtectedPlan = { selfBinds: [], readOnly: [], placeholders: [], gitPaths: [], skipped: [], watched: [], readOnlyBecause: [] };
  const opened = new Set(opts.opened ?? []);
  const roots = [...new Set(opts.roots)].filter((r) => lstat(r)?.isDirectory());
  const writable = [...new Set([...roots, ...(opts.writable ?? [])])];
  const realWritable = writable.map((w) => [w, realOrUndefined(w) ?? w] as const);
  /** `p` resolved, named beneath the writable folder it lies in (as the walk names it); undefined outside them all. */
  const inWritable = (p: string): string | undefined => {
    const real = realOrUndefined(p) ?? p;
    for (const [w, rw] of realWritable) if (within(real, rw)) return w + real.slice(rw.length);
    return undefined;
  };
  const selfBinds = new Set<string>();
  const readOnly = new Set<string>();
  const skip = (p: string, why: string): void => {
    plan.skipped.push(`${p}: ${why}`);
  };

  /** A protected path as it is on disk: bound read-only, or skipped with the reason. */
  const protect = (p: string, st: Stats): void => {
    if (opened.has(p)) return;
    if (st.isSymbolicLink()) {
      const target = realOrUndefined(p);
      const targetSt = target === undefined ? undefined : lstat(target);
      if (target !== undefined && targetSt && (targetSt.isDirectory() || targetSt.isFile()) && inWritable(target) !== undefined) {
        readOnly.add(target);
        skip(p, `a symlink to ${target}, which is mounted read-only instead (the link itself can be replaced)`);
      } else skip(p, target === undefined ? 'a symlink to nothing; not mounted' : `a symlink to ${target}, outside the writable folders; not mounted`);
      return;
    }
    if (!st.isDirectory() && !st.isFile()) {
      skip(p, 'neither a file nor a folder; not mounted');
      return;
    }
    readOnly.add(p);
  };

  const dirBudget = opts.dirBudget ?? SCAN_DIR_BUDGET;
  const budget = { dirs: opts.searchAll === true ? Number.MAX_SAFE_INTEGER : dirBudget };
  const gits: string[] = [];
  // Inside node_modules, target… a `.git` at any depth (`target/a/b/.git`) is found too: before a
  // command within SKIPPED_SCAN_BUDGET of their folders (cheap: mounted read-only), after one within
  // SKIPPED_AFTER_BUDGET (the look that quarantines what a command made there; a listing cache makes it an lstat
  // per unchanged folder).
  const deep = { dirs: opts.searchAll === true ? SKIPPED_AFTER_BUDGET : (opts.skippedBudget ?? SKIPPED_SCAN_BUDGET) };
  for (const root of roots) {
    const w = walk(root, budget, false, deep);
    gits.push(...w.gits);
    // Past the budget, also when the search went on (searchAll): the same verdict either way.
    if (w.truncated || (opts.searchAll === true && Number.MAX_SAFE_INTEGER - budget.dirs > dirBudget && !plan.readOnlyBecause.some((l) => l.includes(' folders (outside ')))) {
      plan.readOnlyBecause.push(`${root}: more than ${dirBudget} folders (outside ${[...SKIPPED_TREES].slice(0, 3).join(', ')}…): the search for .git stopped early`);
    }
  }

  // Folders git takes as git dirs by themselves (a bare repository, a worktree's git dir): work trees too.
  const shaped = gits.filter((g) => path.basename(g) !== '.git');
  // Every `.git`, whole (or, when commits may write, all but what makes git run something).
  // A repository may lead elsewhere: a `gitdir:` file (`--separate-git-dir`, a worktree, a
  // submodule), a git dir's `commondir` (where hooks, config and info/attributes come from), a
  // worktree of a git dir. Each git dir and common dir it leads to, as git itself says (and, in
  // doubt, as the `gitdir:` line reads), that lies in a folder a command may write (the package
  // stores and TMPDIR too) is a repository's metadata as much as a `.git` is.
  const locate = { spawns: LOCATE_BUDGET, over: false };
  for (let i = 0; i < gits.length; i++) {
    const git = gits[i];
    const st = lstat(git);
    if (!st) continue;
    const leads: string[] = [];
    const own = gitdirTarget(git);
    if (own !== undefined) leads.push(own);
    const asks = !st.isDirectory() || lstat(path.join(git, 'commondir')) ? [git] : [];
    if (st.isDirectory()) for (const wt of listDir(path.join(git, 'worktrees'))) if (lstat(path.join(git, 'worktrees', wt, 'commondir'))) asks.push(path.join(git, 'worktrees', wt));
    for (const entry of asks) {
      const where = cachedGitLocations(entry, locate);
      if (where) leads.push(where.gitDir, where.commonDir);
    }
    for (const lead of leads) {
      const named = lstat(lead)?.isDirectory() || lstat(realOrUndefined(lead) ?? lead)?.isDirectory() ? inWritable(lead) : undefined;
      // Covered by a git dir protected whole (a workspace folder that is one is not).
      if (named !== undefined && !gits.includes(named) && !gits.some((g) => !roots.includes(g) && within(named, g))) gits.push(named);
    }
  }
  if (locate.over) plan.readOnlyBecause.push(`more than ${LOCATE_BUDGET} repository pointers to ask git about: where they lead is unknown`);
  for (const git of gits) {
    const st = lstat(git);
    if (!st) continue;
    plan.gitPaths.push(git);
    const root = roots.find((r) => within(git, r));
    // Every folder between the writable root and the repository is a mount point: none can be renamed.
    if (root !== undefined) for (let dir = path.dirname(git); dir !== root && within(dir, root); dir = path.dirname(dir)) selfBinds.add(dir);
    // A workspace folder that git takes as a git dir cannot be read-only whole: what makes git run something in it is.
    if (root !== undefined && (opts.gitAllowWrite || git === root) && st.isDirectory() && !opened.has(git)) {
      if (git !== root) selfBinds.add(git);
      for (const p of gitSensitivePaths(git)) {
        const pst = lstat(p);
        if (pst) protect(p, pst);
        else if (path.basename(p) === 'hooks') plan.placeholders.push(p);
      }
    } else protect(git, st);
  }

  const unreadableConfigs: string[] = [];
  // What the git config of each repository (and of the workspace folders: the global config) names
  // inside a writable folder: config files it includes, hook folders, programs (gitConfigPaths.ts).
  if (opts.home !== undefined) {
    const read = opts.gitConfig ?? gitConfigReferences;
    const trees = [...new Set([...opts.workspaceRoots, ...plan.gitPaths.filter((g) => path.basename(g) === '.git').map((g) => path.dirname(g)), ...shaped.filter((g) => plan.gitPaths.includes(g))])];
    // Past the budget none is read: the plan is read-only whatever they say.
    if (trees.length > CONFIG_READ_BUDGET) plan.readOnlyBecause.push(`${trees.length} repositories: over ${CONFIG_READ_BUDGET}, whose git config is read to find what it runs`);
    const covered = (p: string): boolean => (!opts.gitAllowWrite && plan.gitPaths.some((g) => !roots.includes(g) && within(p, g))) || [...readOnly].some((r) => within(p, r));
    for (const tree of trees.length > CONFIG_READ_BUDGET ? [] : trees) {
      const refs = read(tree, opts.home);
      if (refs === undefined) {
        unreadableConfigs.push(tree);
        continue;
      }
      for (const ref of refs) {
        const p = ref.path;
        // The writable folders themselves and what holds them cannot be read-only (nothing could be written).
        if (opened.has(p) || !roots.some((r) => within(p, r)) || roots.some((r) => within(r, p)) || covered(p)) continue;
        const st = lstat(p);
        const folderKey = FOLDER_KEYS.has(ref.key);
        // Every folder between the writable root and the path is a mount point (as for a nested
        // repository): `mv tools x; mkdir tools` cannot put a new file where git looks.
        const bindParents = (): void => {
          const root = roots.find((r) => within(p, r));
          if (root !== undefined) for (let dir = path.dirname(p); dir !== root && within(dir, root); dir = path.dirname(dir)) selfBinds.add(dir);
        };
        // Written as a path (not a bare word git looks up on PATH): whatever stands there (a file, a
        // folder, an empty folder, a symlink…) is watched, and made or changed by a command it is
        // moved aside (newRepoQuarantine.ts): never claimed now and swapped for a program later.
        const named = folderKey || ref.key === 'file' || ref.pathLike;
        if (st) {
          // A program's word that is a folder (`!cd src && make`) is not code git runs: only files, or the hook and template folders.
          const target = st.isSymbolicLink() ? realOrUndefined(p) : p;
          const targetSt = target === undefined ? undefined : lstat(target);
          if (folderKey || ref.key === 'file' || targetSt?.isFile() || (st.isSymbolicLink() && targetSt === undefined)) {
            protect(p, st);
            bindParents();
          } else if (named && st.isDirectory()) {
            // A folder where git would run a file: a mount point, which cannot be removed or renamed to make room for one.
            selfBinds.add(p);
            bindParents();
          }
          if (named && !plan.watched.includes(p)) plan.watched.push(p);
        } else {
          if (folderKey && !plan.placeholders.includes(p)) {
            plan.placeholders.push(p);
            bindParents();
          }
          if ((folderKey || ref.pathLike) && !plan.watched.includes(p)) plan.watched.push(p);
        }
      }
    }
  }

  if (unreadableConfigs.length > 0) {
    const more = unreadableConfigs.length > 1 ? ` (and ${unreadableConfigs.length - 1} more)` : '';
    plan.readOnlyBecause.push(`${unreadableConfigs[0]}${more}: git could not read the config, so what it runs is unknown`);
  }

  // The protected names of each workspace folder.
  for (const root of opts.workspaceRoots) {
    if (!lstat(root)?.isDirectory()) continue;
    const names = WORKSPACE_PROTECTED_PATHS.filter((rel) => !rel.startsWith('.git/'));
    for (const name of listDir(root)) if (name.endsWith('.code-workspace')) names.push(name);
    for (const rel of names) {
      const p = path.join(root, rel);
      if (opened.has(p)) continue;
      const st = lstat(p);
      if (st) protect(p, st);
      else if (PROTECTED_DIR_NAMES.has(rel)) plan.placeholders.push(p);
    }
    // A workspace that is no repository yet gets no placeholder `.git`: `git init` there must work.
    // The repository it makes is new like any other, and checked after the command by git itself
    // (newRepoQuarantine.ts); from the next command on it is protected as every `.git` is.
  }

  // Hard links: a protected file's other names are as protected as it is.
  const linkedProtected = new Map<string, { path: string; nlink: number }>();
  const linkCheck = { files: opts.linkBudget ?? LINK_CHECK_BUDGET, over: false };
  for (const p of readOnly) {
    for (const f of filesUnder(p, linkCheck)) {
      const st = lstat(f);
      if (st && st.nlink > 1) linkedProtected.set(`${st.dev}:${st.ino}`, { path: f, nlink: st.nlink });
    }
  }
  if (linkedProtected.size > 0) {
    const realRoots = roots.map((r) => realOrUndefined(r)).filter((r): r is string => r !== undefined);
    const links = new Map<string, string[]>();
    const linkBudget = { dirs: opts.dirBudget ?? SCAN_DIR_BUDGET };
    for (const root of roots) {
      const w = walk(root, linkBudget, true);
      if (w.truncated) linkCheck.over = true;
      for (const [key, list] of w.linked) links.set(key, [...(links.get(key) ?? []), ...list]);
    }
    for (const [key, { path: p, nlink }] of linkedProtected) {
      const found = (links.get(key) ?? []).filter((o) => o !== p);
      const others = found.filter((o) => ![...readOnly].some((r) => within(o, r)));
      for (const o of others) readOnly.add(o);
      const unseen = nlink - 1 - found.length;
      // A link not found (in a skipped tree such as node_modules, outside the writable folders) could
      // still write the file: it is replaced by a copy of its own (folderFd.ts), and the other links
      // keep an inode nothing reads at this name. Where that fails, the plan is read-only.
      let detached = '';
      if (unseen > 0) {
        try {
          detachFile(p, realRoots);
          detached = ': replaced by a copy of its own, which they do not reach';
        } catch (err) {
          plan.readOnlyBecause.push(`${p}: has ${nlink} hard links, ${unseen} of them not found, and could not be replaced by a copy of its own (${err instanceof Error ? err.message : String(err)})`);
        }
      }
      skip(p, `has ${nlink} hard links; ${others.length > 0 ? `${others.join(', ')} mounted read-only too` : 'the others are protected already'}${unseen > 0 ? `; ${unseen} not found in the writable folders${detached}` : ''}`);
    }
  }

  // Placeholders only where the parent is a real folder (bwrap cannot make one through a symlink).
  plan.placeholders = plan.placeholders.filter((p) => {
    const parent = lstat(path.dirname(p));
    if (parent?.isDirectory()) return true;
    skip(p, 'its folder is not a plain folder; no placeholder mounted');
    return false;
  });

  if (linkCheck.over) plan.readOnlyBecause.push(`more than ${opts.linkBudget ?? LINK_CHECK_BUDGET} protected files or ${opts.dirBudget ?? SCAN_DIR_BUDGET} folders to check for hard links`);

  const byDepth = (a: string, b: string): number => a.split('/').length - b.split('/').length || a.localeCompare(b);
  plan.selfBinds = [...selfBinds].sort(byDepth);
  plan.readOnly = [...readOnly].sort(byDepth);
  const total = plan.selfBinds.length + plan.readOnly.length + plan.placeholders.length;
  const mountBudget = opts.mountBudget ?? MOUNT_BUDGET;
  // Never some of them: a plan past the budget protects by making the scanned folders read-only.
  if (total > mountBudget) plan.readOnlyBecause.push(`${total} protected paths (${plan.gitPaths.length} .git among them): over ${mountBudget} mounts`);
  return plan;
}

/** The folder a `gitdir: PATH` file names (relative to the file's folder), when it is a folder. */
function gitdirTarget(file: string): string | undefined {
  if (!lstat(file)?.isFile()) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8').slice(0, 4096);
  } catch {
    return undefined;
  }
  const m = /^gitdir: (.+)$/m.exec(text);
  if (!m) return undefined;
  const target = path.resolve(path.dirname(file), m[1].trim());
  return lstat(target)?.isDirectory() ? target : undefined;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Of a `.git` (folder or `gitdir:` file), the paths that make git run a program or read another
 * repository's metadata, existing or not: config, hooks, commondir, alternates, worktree pointers,
 * and the same in every submodule's git dir.
 */
export function gitSensitivePaths(git: string): string[] {
  const st = lstat(git);
  if (!st?.isDirectory()) return [git];
  const out: string[] = [];
  const nested = nestedGitDirs(git);
  // Too many submodule git dirs to list: the `modules` folder itself, whole (protected or moved aside).
  if (nested === undefined) out.push(path.join(git, 'modules'));
  for (const gitDir of [git, ...(nested ?? [])]) {
    for (const rel of GIT_ALWAYS_READ_ONLY) out.push(path.join(gitDir, rel));
    for (const wt of listDir(path.join(gitDir, 'worktrees'))) for (const rel of ['gitdir', 'commondir', 'config.worktree']) out.push(path.join(gitDir, 'worktrees', wt, rel));
  }
  return out;
}

/** Submodule git dirs listed at most per repository; past it the `modules` folder counts whole. */
export const NESTED_GIT_DIR_BUDGET = 200;

/** A repository's submodule git dirs (`.git/modules/a`, `.git/modules/a/modules/b`…); undefined past the budget. */
function nestedGitDirs(gitDir: string): string[] | undefined {
  const out: string[] = [];
  const queue = [path.join(gitDir, 'modules')];
  for (let seen = 0; queue.length > 0; seen++) {
    if (out.length > NESTED_GIT_DIR_BUDGET || seen > 10 * NESTED_GIT_DIR_BUDGET) return undefined;
    const dir = queue.shift() as string;
    for (const name of listDir(dir)) {
      const p = path.join(dir, name);
      if (!lstat(p)?.isDirectory()) continue;
      // By name: every folder under `modules/` counts as a git dir (its config, hooks… are
      // checked); one with a HEAD is a submodule's, whose own `modules/` is next; one without may
      // also group names (`modules/a/b`), so its folders are looked at too.
      out.push(p);
      queue.push(lstat(path.join(p, 'HEAD')) ? path.join(p, 'modules') : p);
    }
  }
  return out;
}
