// Two path questions the sandbox's planners ask of absolute, normalised paths.
import { lstatSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

/** `p` is `dir` or lies beneath it (compared as text, by whole path segments). */
export function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** The real path of `p`, or undefined where it cannot be resolved (missing, a loop, no access). */
export function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * `p` with every symlink on the way resolved; of an absent path, its deepest existing folder is
 * resolved and the rest kept as named. What the sandbox binds writable (and what it plans inside)
 * is named so: bubblewrap cannot mount onto a destination reached through a symlink ("Can't mkdir"),
 * and a plan of unresolved names would miss or break on what lies there.
 */
export function realPath(p: string): string {
  const abs = path.resolve(p);
  let rest = '';
  for (let at = abs; ; at = path.dirname(at)) {
    try {
      return rest === '' ? realpathSync(at) : path.join(realpathSync(at), rest);
    } catch {
      // Absent (or unreadable): one folder up.
    }
    if (at === path.dirname(at)) return abs;
    rest = rest === '' ? path.basename(at) : path.join(path.basename(at), rest);
  }
}

/**
 * A writable folder by its real path (realPath), unless a symlink on its way lies inside another of
 * the `writable` folders: a command made or could replace that link (`ln -s ~ ws/opened` for an
 * allowWrite of `./opened`), so it is not followed, and the path is returned as named (bwrapArgs.ts
 * then binds nothing there: it stays under its parent's mounts).
 */
export function writableRealPath(dir: string, writable: readonly string[]): string {
  const abs = path.resolve(dir);
  const parts = abs.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const at = `/${parts.slice(0, i).join('/')}`;
    let st;
    try {
      st = lstatSync(at);
    } catch {
      break;
    }
    if (st.isSymbolicLink() && writable.some((w) => w !== at && within(at, w))) return abs;
  }
  return realPath(abs);
}

/**
 * Of `writable`, the real paths that can be followed safely (writableRealPath): one reached through
 * a symlink inside another writable folder is left out, never widened to what the link names.
 */
export function followableWritable(writable: readonly string[]): string[] {
  const out = new Set<string>();
  for (const w of writable) {
    const r = writableRealPath(w, writable);
    if (realOrUndefined(r) === r) out.add(r);
  }
  return [...out];
}
