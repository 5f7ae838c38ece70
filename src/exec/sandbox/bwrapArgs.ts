// The bubblewrap command line. The command is always the tail of the argv (`-- file args…`), never
// part of a string we build: nothing a command contains can end a quote of ours (VS Code #298729).
import { existsSync, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { landlockAccess, landlockFolders, landlockPrefix } from './kernel/landlock';
import { nativeInnerPrefix, type NativeLaunch } from './kernel/nativeLaunch';
import { namespaceArgs, PROC_SYS_READ_ONLY } from './kernel/namespaces';
import type { FsPolicy } from './sandboxPolicy';

/** Inside the sandbox's own network namespace the proxy bridge listens here (nothing else can). */
export const PROXY_PORT = 3128;
export const PROXY_URL = `http://127.0.0.1:${PROXY_PORT}`;

export interface Confinement {
  fs: FsPolicy;
  /** The descriptor bwrap reads the seccomp filter from (seccompFilter.ts, opened by launcher.ts). */
  seccompFd?: number;
  /** The command's stdio is a terminal made for it (PTY): no `--new-session` (namespaces.ts). */
  terminal?: boolean;
  /** TMPDIR as a tmpfs of this size instead of a bind of the session folder (limits.ts). */
  tmpfs?: { path: string; bytes: number };
  /** Program files masked by a refusing stand-in (denyMasks.ts). */
  masks?: Array<{ path: string; source: string }>;
  /** Run first inside, before the command (a constant shell that sets a limit, limits.ts). */
  innerPrefix?: string[];
  /** perl and the kernel's Landlock ABI: the ruleset first inside, changes only beneath the folders bound writable (landlock.ts). */
  landlock?: { perl: string; abi: number };
  /**
   * The compiled launcher (nativeLaunch.ts) does the inside steps instead of `landlock` and
   * `innerPrefix`: the process limit (0: none) and, with `landlock`, the ruleset for its ABI.
   */
  nativeInner?: { launch: NativeLaunch; nproc: number; landlock: boolean };
}

/**
 * Containment only (sandbox off, bang commands): the whole filesystem as it is, the caller's
 * capabilities kept, but a PID namespace whose first process takes every other one with it when it
 * dies, and that dies with us (die-with-parent).
 */
export function containArgs(argv: readonly string[]): string[] {
  return ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--', ...argv];
}

/** Everything after `bwrap` for a confined run of `argv`. */
export function confineArgs(c: Confinement, argv: readonly string[]): string[] {
  const args = ['--ro-bind', '/', '/'];
  // The home folder as the sandbox's own (privateHome.ts): first, so every mount beneath it (a
  // workspace folder, a package store) goes on top; read-only once they are all in place.
  const home = c.fs.privateHome;
  if (home !== undefined) {
    args.push('--tmpfs', home.home);
    for (const p of home.binds) args.push('--ro-bind-try', p, p);
  }
  const writable = unique(c.fs.writable);
  /** What is bound writable: the only folders the Landlock ruleset lets a command write beneath. */
  const bound: string[] = [];
  for (const dir of writable) {
    if (dir === c.tmpfs?.path) continue;
    const real = writableTarget(dir, writable);
    if (real !== undefined) {
      args.push('--bind', real, real);
      bound.push(real);
    }
  }
  // The sandbox's own package stores, at the host's store paths (sandboxPolicy.ts CACHE_HOME_PATHS):
  // where the host has one, a command sees and fills its own, and the host's is out of sight.
  /** Each store bound: its host path as the policy names it → where it is bound. */
  const storeBound = new Map<string, string>();
  for (const b of c.fs.cacheBinds ?? []) {
    const dest = writableTarget(b.dest, [...writable, b.dest]);
    if (dest === undefined || bound.includes(dest)) continue;
    try {
      mkdirSync(b.source, { recursive: true, mode: 0o700 });
    } catch {
      continue;
    }
    args.push('--bind', b.source, dest);
    bound.push(dest);
    storeBound.set(b.dest, dest);
  }
  if (c.tmpfs && existsSync(c.tmpfs.path)) {
    args.push('--size', String(c.tmpfs.bytes), '--tmpfs', c.tmpfs.path);
    bound.push(realpathSync(c.tmpfs.path));
  }
  // Mount points cannot be renamed (protectedMounts.ts): the folders above a nested repository.
  for (const dir of unique(c.fs.selfBinds ?? [])) if (writableTarget(dir, writable) === dir) args.push('--bind', dir, dir);
  for (const p of unique(c.fs.denyWrite)) if (existsSync(p)) args.push('--ro-bind', p, p);
  // Protected paths in a store of the sandbox's own: read-only where that store is bound (nowhere else to see them).
  for (const b of c.fs.readOnlyBinds ?? []) {
    const store = [...storeBound].find(([dest]) => b.dest.startsWith(`${dest}/`));
    if (store !== undefined && existsSync(b.source)) args.push('--ro-bind', b.source, store[1] + b.dest.slice(store[0].length));
  }
  // A protected folder not made yet: an empty read-only one in its place (bwrap leaves it behind,
  // empty). Only where nothing is, not even a dangling symlink, and the parent is a real folder.
  for (const p of unique(c.fs.denyCreate ?? [])) {
    if (!lstatSync(p, { throwIfNoEntry: false }) && lstatSync(dirname(p), { throwIfNoEntry: false })?.isDirectory()) args.push('--tmpfs', p, '--remount-ro', p);
  }
  for (const p of unique(c.fs.denyRead)) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) args.push('--tmpfs', p, '--remount-ro', p);
    else args.push('--ro-bind', '/dev/null', p);
  }
  for (const m of c.masks ?? []) args.push('--ro-bind', m.source, m.path);
  if (home !== undefined) args.push('--remount-ro', home.home);
  // Last, so a writable bind of a parent (a workspace at `/`) cannot cover them (binds are nodev).
  args.push('--dev', '/dev', '--proc', '/proc', ...PROC_SYS_READ_ONLY);
  if (c.seccompFd !== undefined) args.push('--seccomp', String(c.seccompFd));
  // The network: the shared namespace the launcher entered, or `--unshare-net` it adds (launcher.ts).
  args.push(...namespaceArgs({ terminal: c.terminal }), '--unshare-pid', '--die-with-parent', '--cap-drop', 'ALL', '--');
  const n = c.nativeInner;
  if (n !== undefined) {
    if (n.landlock || n.nproc > 0) args.push(...nativeInnerPrefix(n.launch, n.nproc, n.landlock ? { access: landlockAccess(n.launch.abi), folders: landlockFolders(bound) } : undefined));
  } else {
    if (c.landlock !== undefined) args.push(...landlockPrefix(c.landlock, bound));
    if (c.innerPrefix) args.push(...c.innerPrefix);
  }
  args.push(...argv);
  return args;
}

/**
 * Where a writable folder really is, bound at its real path (bubblewrap cannot mount onto a
 * symlink: a symlinked cache folder would fail every command). Undefined when it does not exist, or
 * when a symlink on its way lies inside a writable folder: a command made or could replace that
 * link (`ln -s ~ ws/opened` for an allowWrite of `./opened`), and following it would bind what it
 * names writable. Such a folder is left as it is under its parent's mounts (writable or not).
 */
function writableTarget(dir: string, writable: readonly string[]): string | undefined {
  let real: string;
  try {
    real = realpathSync(dir);
    if (!statSync(real).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  if (real === dir) return dir;
  const parts = dir.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const at = `/${parts.slice(0, i).join('/')}`;
    if (!lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
    if (writable.some((w) => w !== at && at.startsWith(w.endsWith('/') ? w : `${w}/`))) return undefined;
  }
  return real;
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
