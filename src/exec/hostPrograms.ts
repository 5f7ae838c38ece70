// The programs the host itself runs for Agent Bash (bwrap, socat, nsenter, bash, git, perl, direnv,
// mkfifo, sleep…), by trusted absolute paths. The caller's PATH may hold folders a sandboxed command
// can write (an activated `.venv/bin`, direnv's `PATH_add`, `node_modules/.bin`, a relative entry):
// a `git` or `bwrap` written there would run on the host, unconfined, the next time a helper is
// looked up. So each is looked up once, in a PATH from which are removed every relative entry,
// every folder inside a folder the sandbox may write (the runtimes register theirs:
// `addUntrustedFolders`), and every folder that is not, all the way from `/`, owned by root or the
// current user and closed to others' writes (a sticky folder such as /tmp may be on the way). The
// file found must itself lie, resolved, in such a place.
import { accessSync, constants, lstatSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { within } from './pathWithin';

/** The usual system folders (callers that search past PATH add them, under the same rules). */
export const SYSTEM_BIN_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

const sources = new Set<() => readonly string[]>();

/**
 * Folders whose contents a sandboxed command may write (workspace folders, allowWrite, the
 * sandbox's temporary folder and stores): never searched for host programs. Returns the removal.
 */
export function addUntrustedFolders(source: () => readonly string[]): () => void {
  sources.add(source);
  return () => {
    sources.delete(source);
  };
}

function untrustedFolders(): string[] {
  const out = new Set<string>();
  for (const source of sources) {
    for (const dir of source()) {
      if (!path.isAbsolute(dir)) continue;
      out.add(path.resolve(dir));
      try {
        out.add(realpathSync(dir));
      } catch {
        // Not there (yet): its path as written is enough.
      }
    }
  }
  return [...out];
}

const uid = (): number | undefined => process.getuid?.();

/** Owned by root or us, and nobody else may write it (a sticky folder only when `stickyOk`). */
function closed(p: string, stickyOk: boolean): boolean {
  let st;
  try {
    st = statSync(p);
  } catch {
    return false;
  }
  const me = uid();
  if (st.uid !== 0 && st.uid !== me) return false;
  const othersWrite = (st.mode & 0o022) !== 0;
  if (!othersWrite) return true;
  return stickyOk && st.isDirectory() && (st.mode & 0o1000) !== 0;
}

/** `real` (resolved) and every folder above it closed to others; the folder itself never sticky-open. */
function trustedChain(real: string): boolean {
  if (!closed(real, false)) return false;
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    if (!closed(dir, true)) return false;
    if (dir === path.dirname(dir)) return true;
  }
}

const searchPaths = new Map<string, string[]>();

/** The folders of `pathVar` a host program may be taken from, in order (worked out once per PATH and untrusted folders). */
export function trustedSearchPath(pathVar: string | undefined): string[] {
  const untrusted = untrustedFolders();
  const key = JSON.stringify([pathVar ?? '', untrusted]);
  const known = searchPaths.get(key);
  if (known) return known;
  const out: string[] = [];
  for (const entry of (pathVar ?? '').split(path.delimiter)) {
    if (entry === '' || !path.isAbsolute(entry)) continue;
    let real: string;
    try {
      real = realpathSync(entry);
    } catch {
      continue;
    }
    if (out.includes(real)) continue;
    if (untrusted.some((u) => within(entry, u) || within(real, u))) continue;
    if (!trustedChain(real)) continue;
    out.push(real);
  }
  if (searchPaths.size > 100) searchPaths.clear();
  searchPaths.set(key, out);
  return out;
}

const cache = new Map<string, string | undefined>();

/**
 * The absolute path of host program `name` (a bare name), found in the trusted search path of
 * `pathVar` (default: this process's PATH); undefined when none is there. Cached per name, PATH and
 * untrusted folders.
 */
export function hostProgram(name: string, pathVar: string | undefined = process.env.PATH): string | undefined {
  if (name.includes('/') || name === '') return undefined;
  const untrusted = untrustedFolders();
  const key = JSON.stringify([name, pathVar ?? '', untrusted]);
  if (cache.has(key)) return cache.get(key);
  let found: string | undefined;
  for (const dir of trustedSearchPath(pathVar)) {
    const candidate = path.join(dir, name);
    try {
      if (!lstatSync(candidate, { throwIfNoEntry: false })) continue;
      accessSync(candidate, constants.X_OK);
      const real = realpathSync(candidate);
      // A link in a trusted folder to a file a command may write (`npm link`) is no trusted program.
      if (untrusted.some((u) => within(real, u)) || !trustedChain(real)) continue;
      if (!statSync(real).isFile()) continue;
      found = candidate;
      break;
    } catch {
      // Not here; the next folder.
    }
  }
  if (cache.size > 1000) cache.clear();
  cache.set(key, found);
  return found;
}
