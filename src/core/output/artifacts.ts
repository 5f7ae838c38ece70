// Artifacts: files that hold what a result could not show inline (the full output of a long run,
// the original text behind an inline cap). The model reads them back as `artifact://<id>`.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Artifact, ArtifactStore } from './outputContracts';

/** Ids are plain decimal numbers, so an id can never name a path outside the store. */
const ARTIFACT_ID = /^[1-9][0-9]*$/;
/** Kinds end up in file names: keep them to one safe word. */
const UNSAFE_KIND_CHARS = /[^A-Za-z0-9_-]+/g;

/** The `artifact://` URL the model is told to read. */
export function artifactUrl(id: string): string {
  return `artifact://${id}`;
}

/** `<id>.<kind>.log`, e.g. `3.bash.log`. */
export function artifactFileName(id: string, kind: string): string {
  const safeKind = kind.replace(UNSAFE_KIND_CHARS, '_') || 'output';
  return `${id}.${safeKind}.log`;
}

export class FileArtifactStore implements ArtifactStore {
  private next = 0;
  private readonly paths = new Map<string, string>();

  constructor(readonly dir: string) {}

  /** Names the file; the directory is made by whoever writes it, so a run without output makes none. */
  allocate(kind: string): Artifact {
    if (this.next === 0) this.next = this.firstFreeId();
    const id = String(this.next++);
    const file = path.join(this.dir, artifactFileName(id, kind));
    this.paths.set(id, file);
    return { id, path: file };
  }

  async save(kind: string, text: string): Promise<string> {
    const { id, path: file } = this.allocate(kind);
    await fs.promises.mkdir(this.dir, { recursive: true });
    await fs.promises.writeFile(file, text, 'utf8');
    return id;
  }

  pathOf(id: string): string | undefined {
    const known = this.paths.get(id);
    if (known !== undefined) return known;
    if (!ARTIFACT_ID.test(id)) return undefined;
    // An id from an earlier session that reused this directory.
    const prefix = `${id}.`;
    const name = this.listNames().find((n) => n.startsWith(prefix));
    return name === undefined ? undefined : path.join(this.dir, name);
  }

  /** Continues after any ids already in the directory so a reused directory never overwrites. */
  private firstFreeId(): number {
    let max = 0;
    for (const name of this.listNames()) {
      const dot = name.indexOf('.');
      const id = dot === -1 ? '' : name.slice(0, dot);
      if (ARTIFACT_ID.test(id)) max = Math.max(max, Number(id));
    }
    return max + 1;
  }

  private listNames(): string[] {
    try {
      return fs.readdirSync(this.dir);
    } catch {
      return [];
    }
  }
}

/** Session artifact directories older than this are removed when a new session starts. */
export const ARTIFACT_SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Removes the session directories under `root` (one per session, each a FileArtifactStore) whose
 * last change is older than `maxAgeMs`, except `keep`. Full outputs are kept for a week, not forever.
 * Returns the names removed; errors on one directory do not stop the others.
 */
export async function pruneArtifactSessions(root: string, keep: string, maxAgeMs = ARTIFACT_SESSION_MAX_AGE_MS, now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = path.join(root, name);
    if (path.resolve(dir) === path.resolve(keep)) continue;
    try {
      const stat = await fs.promises.stat(dir);
      if (!stat.isDirectory() || now - stat.mtimeMs <= maxAgeMs) continue;
      await fs.promises.rm(dir, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Someone else's directory or a race with its removal: leave it.
    }
  }
  return removed;
}
