// Allow Writing's proposal (issue 31): the narrowest existing folder that holds a path the sandbox
// refused, and the checks on a folder the person types instead. No VS Code here, so unit tests run it.
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The folder to allow for a refused path: the narrowest existing folder that holds it (the path
 * itself when it is a folder, else the nearest existing parent: the sandbox opens existing folders only).
 */
export function folderToAllow(refusedPath: string, cwd: string): string {
  let dir = path.resolve(cwd, refusedPath);
  for (;;) {
    try {
      if (fs.statSync(dir).isDirectory()) return dir;
    } catch {
      // Not there (yet): its parent is where it would be made.
    }
    const up = path.dirname(dir);
    if (up === dir) return dir;
    dir = up;
  }
}

/** Folders too broad to open without a second look: the proposal names them and asks to narrow. */
export function isBroadFolder(dir: string, home: string): boolean {
  return ['/', '/tmp', '/var/tmp', '/dev/shm', '/home', '/usr', '/etc', '/var', '/opt', '/root', home].includes(dir.replace(/\/+$/, '') || '/');
}

/** Why a folder typed for Allow Writing cannot be saved, or undefined. Tests assert these. */
export function allowWriteProblem(value: string, refused: string, cwd: string): string | undefined {
  const dir = value.trim();
  if (!path.isAbsolute(dir)) return 'give an absolute path';
  if (path.resolve(dir) === '/') return 'not the whole file system';
  const target = path.resolve(cwd, refused);
  const rel = path.relative(path.resolve(dir), target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return `${dir} does not hold ${target}, so the command would still be refused`;
  try {
    if (!fs.statSync(dir).isDirectory()) return `${dir} is not a folder`;
  } catch {
    return `${dir} does not exist (the sandbox opens existing folders only)`;
  }
  return undefined;
}

