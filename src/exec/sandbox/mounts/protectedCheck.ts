// After a sandboxed command, a cheap look at what it must not have changed: the protected paths'
// inode and, of files, their mode and content (and those of the files in protected folders), protected names
// that did not exist, and the set of `.git`s. Anything the mounts missed (a persistent shell started
// before a repository existed, a name that cannot have a placeholder, a race) is named in the result.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync } from 'node:fs';
import { renameInFolder } from './folderFd';
import * as path from 'node:path';
import { gitSensitivePaths, PROTECTED_DIR_NAMES, type ProtectedPlan } from './protectedMounts';
import { WORKSPACE_PROTECTED_PATHS } from '../../../core/policy/checks/protectedPaths';

/** Files per protected folder whose state is compared. */
const FILES_PER_DIR = 200;

export type Snapshot = Map<string, string>;

/**
 * Bytes of a protected file compared by content at most; a bigger one (or one that cannot be read)
 * is compared by its change time too, which every write moves and no command can set back.
 */
export const CONTENT_CHECK_BYTES = 1024 * 1024;

function stateOf(p: string): string {
  try {
    const st = lstatSync(p);
    const kind = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : st.isFile() ? 'f' : 'o';
    // A folder's own times change with its listing, which the files below already say.
    if (kind === 'd') return `d:${st.ino}`;
    // A file by its bytes and mode, not its size and modification time alone: a command can write
    // the same number of bytes and set the time back (`touch -r`).
    // Not its inode: a file replaced by a copy of its own (protectedMounts.ts, hard links) is unchanged.
    if (kind === 'f') return `f:${st.mode}:${st.size}:${contentOf(p, st.size) ?? `${st.ino} ctime ${st.ctimeMs}`}`;
    return `${kind}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'absent';
  }
}

/** The sha256 of a regular file up to CONTENT_CHECK_BYTES (never through a symlink, never blocking on a fifo); undefined otherwise. */
function contentOf(p: string, size: number): string | undefined {
  if (size > CONTENT_CHECK_BYTES) return undefined;
  let fd: number;
  try {
    fd = openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const hash = createHash('sha256');
    const buf = Buffer.alloc(64 * 1024);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > CONTENT_CHECK_BYTES) return undefined;
      hash.update(buf.subarray(0, n));
    }
    return hash.digest('hex');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** An absent name, or an empty folder (the placeholder bwrap leaves behind): nothing there. */
function emptyOrAbsent(p: string): string {
  try {
    const st = lstatSync(p);
    if (st.isDirectory() && readdirSync(p).length === 0) return 'absent';
    return stateOf(p);
  } catch {
    return 'absent';
  }
}

function addTree(snap: Snapshot, p: string): void {
  snap.set(p, emptyOrAbsent(p));
  const queue = [p];
  let files = 0;
  for (let i = 0; i < queue.length && files < FILES_PER_DIR; i++) {
    let entries;
    try {
      entries = readdirSync(queue[i], { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const child = path.join(queue[i], e.name);
      if (e.isDirectory()) {
        queue.push(child);
        continue;
      }
      if (++files > FILES_PER_DIR) break;
      snap.set(child, stateOf(child));
    }
  }
}

/** The protected set's state now, under `plan`'s mounts. */
export function snapshotProtected(plan: ProtectedPlan, workspaceRoots: readonly string[]): Snapshot {
  const snap: Snapshot = new Map();
  const inGit = (p: string): boolean => plan.gitPaths.some((g) => p === g || p.startsWith(`${g}/`));
  for (const p of plan.readOnly) if (!inGit(p)) addTree(snap, p);
  for (const p of plan.placeholders) if (!inGit(p)) snap.set(p, emptyOrAbsent(p));
  // Paths a git config names (gitConfigPaths.ts): made or changed by a command, they are moved
  // aside. An empty folder counts (a path claimed now, to be swapped for a program later); only a
  // placeholder (above) reads as nothing there.
  for (const p of plan.watched) if (!snap.has(p)) snap.set(p, stateOf(p));
  // Of a repository, what makes git run something (its index and refs change under the user's own git).
  for (const git of plan.gitPaths) {
    // An empty `.git` is the placeholder bwrap leaves behind: no repository.
    if (emptyOrAbsent(git) !== 'absent') snap.set(`git:${git}`, 'present');
    for (const p of gitSensitivePaths(git)) addTree(snap, p);
  }
  for (const root of workspaceRoots) {
    for (const rel of WORKSPACE_PROTECTED_PATHS) {
      if (rel.startsWith('.git/')) continue;
      const p = path.join(root, rel);
      if (!snap.has(p)) snap.set(p, PROTECTED_DIR_NAMES.has(rel) ? emptyOrAbsent(p) : stateOf(p));
    }
  }
  return snap;
}

/** What changed between two snapshots: one line per path (new `.git`s included; not what is inside a new one). */
export function compareSnapshots(before: Snapshot, after: Snapshot): string[] {
  const changes = new Map<string, string>();
  for (const [key, was] of before) {
    const now = after.get(key);
    if (key.startsWith('git:')) {
      if (now === undefined) changes.set(key.slice(4), 'was removed or moved');
      continue;
    }
    if (now === undefined || now === was) continue;
    changes.set(key, was === 'absent' ? 'was created' : now === 'absent' ? 'was removed' : 'was changed');
  }
  for (const [key, now] of after) {
    if (before.has(key)) continue;
    if (key.startsWith('git:')) changes.set(key.slice(4), 'was created');
    else if (now !== 'absent') changes.set(key, 'was created');
  }
  // What is inside a new `.git` or protected folder is its own; a new folder that git takes as a git
  // dir by itself (a workspace folder may be one) holds other protected paths, which are still named.
  const created = [...changes].filter(([p, what]) => what === 'was created' && (path.basename(p) === '.git' || !after.has(`git:${p}`))).map(([p]) => p);
  return [...changes]
    .filter(([p]) => !created.some((c) => p !== c && p.startsWith(`${c}/`)))
    .map(([p, what]) => `${p} ${what}`);
}

export function protectedChangeNotice(changes: readonly string[]): string | undefined {
  if (changes.length === 0) return undefined;
  const shown = changes.slice(0, 20);
  const more = changes.length > shown.length ? ` (and ${changes.length - shown.length} more)` : '';
  return `Agent Bash: the sandboxed command changed protected paths the sandbox's mounts did not cover: ${shown.join('; ')}${more}. Check them before running git or opening the folder's settings: these paths can run programs on your machine.`;
}

/** The command ran with the workspace folders read-only: why, and what makes them writable again. */
export function readOnlyNotice(reasons: readonly string[]): string | undefined {
  if (reasons.length === 0) return undefined;
  return `Agent Bash: the workspace folders (and allowWrite) were read-only for this command, because the sandbox could not protect everything in them: ${reasons.join('; ')}. To write there again, remove what is named (repositories or \`.git\` entries the workspace does not need, or open a smaller folder; or fix the config git cannot read), then run the command again.`;
}

export function skippedNotice(skipped: readonly string[]): string | undefined {
  if (skipped.length === 0) return undefined;
  return `Agent Bash: the sandbox did not protect ${skipped.join('; ')}.`;
}

/** Inside a `.git`, files whose mere existence redirects or extends git (no placeholder can stand there). */
const REDIRECTING = new Set(['commondir', 'alternates', 'config.worktree', 'attributes']);

/**
 * Of the changes, the files the command created in an existing `.git` that make git read another
 * place or run something (commondir, alternates, hooks…): moved aside at once to `NAME.agent-bash-blocked`
 * so the host's next git does not follow them. Returns the change lines, saying what was moved.
 */
export function moveAsideCreated(changes: readonly string[], gitPaths: readonly string[]): string[] {
  return changes.map((line) => {
    const m = / was created$/.exec(line);
    if (!m) return line;
    const p = line.slice(0, m.index);
    const git = gitPaths.find((g) => p.startsWith(`${g}/`));
    const name = path.basename(p);
    if (git === undefined || !(REDIRECTING.has(name) || path.basename(path.dirname(p)) === 'hooks')) return line;
    try {
      // Only where the path is what it says: a folder on the way swapped for a symlink would point
      // the rename at a file of the host's own. The rename itself goes through a descriptor of the
      // folder checked to lie in the git dir (folderFd.ts), so a swap after this check cannot either.
      const realGit = realpathSync(git);
      if (realpathSync(path.dirname(p)) !== path.join(realGit, path.relative(git, path.dirname(p)))) {
        return `${line} (not moved: its folder is reached through a symlink)`;
      }
      return `${line} (moved aside to ${renameInFolder(p, `${p}.agent-bash-blocked`, [realGit])})`;
    } catch {
      return line;
    }
  });
}
