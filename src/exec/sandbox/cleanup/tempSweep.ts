// Room exec/sandbox/cleanup/: what is left behind is found and removed (owned temp folders, orphaned processes).
// Temporary folders that say who owns them, and the sweep of those whose owner is gone. A folder
// Agent Bash makes in the temp dir (the sandbox's session folder with its TMPDIR and proxy sockets,
// the stdio MCP server's output files) carries its owner's pid and start time in its name
// (`agent-bash-sandbox-o1234.98765-AbC123`); the owner removes it when it ends, and when it was
// killed instead, the next extension host or CLI removes it at start. The start time makes a reused
// pid count as gone. Folders without a mark (`agent-bash-run-*`, kept on purpose for a while, and
// anything else) are never touched, nor folders of another user, nor symbolic links.
import { mkdtempSync, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ownerAlive, ownerMark } from './orphanSweep';

const OWNED = /^agent-bash-[a-z]+-o(\d+)\.(\d+)-/;

/** `agent-bash-<kind>-o<pid>.<start time>-`: the prefix of a folder this process owns. */
export function ownedTempPrefix(kind: string, mark: string = ownerMark()): string {
  const [pid, start] = mark.split(':');
  return `agent-bash-${kind}-o${pid}.${start}-`;
}

/** A new folder in the temp dir, owned by this process (see above). */
export function makeOwnedTempDir(kind: string, root: string = os.tmpdir()): string {
  return mkdtempSync(path.join(root, ownedTempPrefix(kind)));
}

/** The owner mark (`pid:start`) a folder name carries, or undefined. */
export function tempDirOwner(name: string): string | undefined {
  const m = OWNED.exec(name);
  return m ? `${m[1]}:${m[2]}` : undefined;
}

function alive(mark: string): boolean {
  if (process.platform === 'linux' && !mark.endsWith(':0')) return ownerAlive(mark);
  // No start time (no /proc where it was made): a pid that answers counts as the owner.
  try {
    process.kill(Number(mark.split(':')[0]), 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes this user's owned folders under `root` whose owner process is gone; returns them. Never
 * throws: a folder that vanishes or cannot be removed meanwhile is skipped.
 */
export async function sweepStaleTempDirs(root: string = os.tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(root);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    const mark = tempDirOwner(name);
    if (mark === undefined || alive(mark)) continue;
    const dir = path.join(root, name);
    try {
      const st = await fsp.lstat(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      await fsp.rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}
