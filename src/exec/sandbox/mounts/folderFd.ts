// Changes the host makes inside the writable folders by itself (a rename aside when the confined
// mover could not run, a protected file replaced by a copy of its own), made through an open
// descriptor of the folder: the folder is opened, and the kernel's own name for what was opened
// (`/proc/self/fd/N`) must be the folder's real path, inside a writable folder. The change then
// happens in that very folder (`/proc/self/fd/N/NAME`), whatever a sandboxed process swaps on the
// way afterwards (a folder for a symlink): it can only move the folder within the mount it writes,
// never point the change at a file of the host's own.
import { closeSync, constants, fstatSync, futimesSync, fchmodSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { within } from '../../pathWithin';

/** Bytes of a protected file copied at most (a bigger one cannot be detached: the caller fails closed). */
export const DETACH_MAX_BYTES = 1024 * 1024;

/**
 * `fn` with a name of the folder `dir` through an open descriptor, once the descriptor is checked to
 * be the folder `dir` resolves to and to lie inside one of `writable` (real paths). Throws with the reason otherwise.
 */
export function inFolder<T>(dir: string, writable: readonly string[], fn: (at: string) => T): T {
  const real = realpathSync(dir);
  if (!writable.some((w) => within(real, w))) throw new Error('its folder is not in a writable folder');
  const fd = openSync(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const at = `/proc/self/fd/${fd}`;
    if (!fstatSync(fd).isDirectory() || readlinkSync(at) !== real) throw new Error('its folder changed while it was opened');
    return fn(at);
  } finally {
    closeSync(fd);
  }
}

/**
 * Renames `from` to a free name `to`, `to-2`, `to-3`… in the same folder (never over a file),
 * through the folder's descriptor; returns the name it got.
 */
export function renameInFolder(from: string, to: string, writable: readonly string[]): string {
  if (path.dirname(from) !== path.dirname(to)) throw new Error('not one folder');
  return inFolder(path.dirname(from), writable, (at) => {
    for (let n = 1; n < 100; n++) {
      const name = n === 1 ? path.basename(to) : `${path.basename(to)}-${n}`;
      try {
        lstatSync(path.join(at, name));
        continue;
      } catch {
        // Free: this one.
      }
      renameSync(path.join(at, path.basename(from)), path.join(at, name));
      return path.join(path.dirname(to), name);
    }
    throw new Error('no free name to move it to');
  });
}

let detachCount = 0;

/**
 * Replaces the regular file `file` by a copy of its own (same bytes, mode and times; a new inode,
 * one link), renamed over it in its folder: its other hard links keep the old inode, which no host
 * program reads at this name any more. Throws with the reason when it cannot.
 */
export function detachFile(file: string, writable: readonly string[]): void {
  const name = path.basename(file);
  inFolder(path.dirname(file), writable, (at) => {
    // Never through a symlink, never blocking on a fifo swapped in.
    const src = openSync(path.join(at, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    let bytes: Buffer;
    let st;
    try {
      st = fstatSync(src);
      if (!st.isFile()) throw new Error('not a regular file');
      if (st.size > DETACH_MAX_BYTES) throw new Error(`over ${DETACH_MAX_BYTES} bytes`);
      bytes = Buffer.alloc(st.size);
      let got = 0;
      while (got < bytes.length) {
        const n = readSync(src, bytes, got, bytes.length - got, got);
        if (n === 0) break;
        got += n;
      }
      if (got !== st.size) throw new Error('it changed while it was read');
    } finally {
      closeSync(src);
    }
    const tmp = `.${name}.agent-bash-detach-${process.pid}-${++detachCount}`;
    const out = openSync(path.join(at, tmp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      let put = 0;
      while (put < bytes.length) put += writeSync(out, bytes, put, bytes.length - put);
      fchmodSync(out, st.mode & 0o7777);
      futimesSync(out, st.atimeMs / 1000, st.mtimeMs / 1000);
    } finally {
      closeSync(out);
    }
    try {
      renameSync(path.join(at, tmp), path.join(at, name));
    } catch (err) {
      rmSync(path.join(at, tmp), { force: true });
      throw err;
    }
    const now = lstatSync(path.join(at, name));
    if (now.ino === st.ino || now.nlink !== 1) throw new Error('the copy did not take its place');
  });
}
