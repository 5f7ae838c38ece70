// Where `agent-bash run` keeps full outputs, and for how long. Each run gets its own folder
// `<tmp>/agent-bash-run-<pid>-<random>`, created only when an artifact is written (a run without
// one, or one killed before writing, leaves no folder). At every start, off the run's path, the
// folders are pruned: empty ones, ones older than 7 days, then the oldest until all of them
// together hold at most 2 GiB.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export const RUN_ARTIFACT_PREFIX = 'agent-bash-run-';
/** Full outputs older than this are deleted (the extension keeps its sessions' for a week too). */
export const RUN_ARTIFACT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** All run folders together stay under this; the oldest go first. */
export const RUN_ARTIFACT_MAX_BYTES = 2 * 1024 * 1024 * 1024;
/**
 * An empty folder younger than this may belong to a run that is about to write its first artifact
 * (the folder is made just before the file); older empty ones are a killed run's leftovers.
 */
export const EMPTY_FOLDER_GRACE_MS = 60_000;

export interface RetentionRule {
  maxAgeMs: number;
  maxBytes: number;
  emptyGraceMs: number;
}

export const RUN_ARTIFACT_RETENTION: RetentionRule = {
  maxAgeMs: RUN_ARTIFACT_MAX_AGE_MS,
  maxBytes: RUN_ARTIFACT_MAX_BYTES,
  emptyGraceMs: EMPTY_FOLDER_GRACE_MS,
};

/** A fresh folder path for this run's artifacts; nothing is created yet. */
export function runArtifactDir(root: string): string {
  return path.join(root, `${RUN_ARTIFACT_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
}

interface RunFolder {
  dir: string;
  mtimeMs: number;
  bytes: number;
  files: number;
}

/** Size and age of one run folder (its files are flat); undefined when it is not a folder. */
async function inspect(dir: string): Promise<RunFolder | undefined> {
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory()) return undefined;
  let bytes = 0;
  let mtimeMs = stat.mtimeMs;
  const names = await fs.readdir(dir);
  for (const name of names) {
    const file = await fs.lstat(path.join(dir, name)).catch(() => undefined);
    if (!file) continue;
    bytes += file.size;
    mtimeMs = Math.max(mtimeMs, file.mtimeMs);
  }
  return { dir, mtimeMs, bytes, files: names.length };
}

/**
 * Applies `rule` to the `agent-bash-run-*` folders under `root`, never touching `keep`. Returns the
 * folders removed. A folder that vanishes or cannot be read meanwhile is skipped.
 */
export async function pruneRunArtifacts(root: string, keep: string, rule = RUN_ARTIFACT_RETENTION, now = Date.now()): Promise<string[]> {
  const names = await fs.readdir(root).catch(() => [] as string[]);
  const folders: RunFolder[] = [];
  for (const name of names) {
    if (!name.startsWith(RUN_ARTIFACT_PREFIX)) continue;
    const dir = path.join(root, name);
    if (path.resolve(dir) === path.resolve(keep)) continue;
    const folder = await inspect(dir).catch(() => undefined);
    if (folder) folders.push(folder);
  }
  const removed: string[] = [];
  const remove = async (folder: RunFolder): Promise<void> => {
    try {
      await fs.rm(folder.dir, { recursive: true, force: true });
      removed.push(folder.dir);
    } catch {
      // Another user's folder, or a race with its removal: leave it.
    }
  };
  const kept: RunFolder[] = [];
  for (const folder of folders) {
    const age = now - folder.mtimeMs;
    if ((folder.files === 0 && age > rule.emptyGraceMs) || age > rule.maxAgeMs) await remove(folder);
    else kept.push(folder);
  }
  kept.sort((a, b) => a.mtimeMs - b.mtimeMs);
  let total = kept.reduce((sum, f) => sum + f.bytes, 0);
  for (const folder of kept) {
    if (total <= rule.maxBytes) break;
    await remove(folder);
    total -= folder.bytes;
  }
  return removed;
}
