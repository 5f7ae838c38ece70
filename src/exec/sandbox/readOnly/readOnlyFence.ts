// The read-only fence of an auto-approved read (core/policy/checks/readerClass.ts decides which lines;
// docs/SANDBOX.md, "Read-only by construction", says what it guarantees). One Landlock domain, set
// by the compiled launcher before a one-shot command or by the bash builtin in a persistent shell's
// subshell (native/readonly-fence.h), inside the sandbox that already runs the line:
//   - no change to any file or folder but beneath the call's own scratch folder (its TMPDIR and
//     HOME) and existing files of /dev (the terminal, /dev/null); the pipes it was handed stay usable;
//   - reads only beneath the workspace folders, the system's folders and the scratch folder: the
//     person's home and sibling projects are out of reach;
//   - runs only the programs the policy resolved for the line (on the PATH the line runs with), the
//     shell, their ELF and `#!` interpreters and the helpers a program runs itself (git's exec path);
//   - no TCP connect or bind, no abstract unix socket, no signal to a process outside the fence (one-
//     shot runs also get a network namespace of their own with nothing in it).
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { findOnPath } from '../sandboxProbe';

/** Folders of the system a reader may read (those that exist). `/var`, `/run`, `/tmp`, `/home`, `/root`, `/srv`, `/mnt` stay out. */
export const SYSTEM_READ_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt', '/sys', '/proc'];

/**
 * `/etc` is read entry by entry, leaving out the system's own secrets (a root-run sandbox can read
 * them): password hashes, host keys, private TLS keys, keytabs, stored credentials and connections.
 */
export const ETC_SECRETS = [
  'shadow', 'shadow-', 'gshadow', 'gshadow-', 'sudoers', 'sudoers.d', 'ssh/ssh_host_*', 'ssl/private', 'pki/tls/private',
  'security/opasswd', 'krb5.keytab', 'credstore', 'credstore.encrypted', 'NetworkManager/system-connections', 'wireguard',
  'ppp/chap-secrets', 'ppp/pap-secrets', 'docker/key.json', 'libvirt/secrets', 'letsencrypt', 'ipsec.secrets', 'ipsec.d/private',
  'openvpn', 'cups/ssl', 'exim4/passwd.client', 'postfix/sasl_passwd*', 'mysql/debian.cnf', 'ldap.secret', 'rsyncd.secrets',
];
/** How long the listing of `/etc` is reused. */
const ETC_FRESH_MS = 30_000;
let etcCache: { at: number; paths: string[] } | undefined;
/** The system folders this machine has (looked up once: a call's fence is on the hot path). */
let systemRoots: string[] | undefined;
/**
 * Read and write existing files only (see native/readonly-fence.h `D:`): the terminal, `/dev/null`.
 * `/proc` is read only: `/dev/stdout` of a pipe needs no right there, and no file of another process
 * (the session's shell) can be written.
 */
export const DEVICE_ROOTS = ['/dev'];

/** Programs that run helpers of their own, and where those live (asked of the program once). */
const HELPER_DIRS: Partial<Record<string, (program: string) => string | undefined>> = {
  git: (git) => {
    const r = spawnSync(git, ['--exec-path'], { encoding: 'utf8', timeout: 5000, env: { PATH: '/usr/bin:/bin' } });
    const dir = r.status === 0 ? r.stdout.trim() : '';
    return path.isAbsolute(dir) ? dir : undefined;
  },
};
const helperCache = new Map<string, string | undefined>();

/** What one fenced call is given. */
export interface FencePlan {
  /** The call's scratch folder (made by the fence): its TMPDIR and HOME. */
  scratch: string;
  /** Workspace folders: read. */
  workspaceRoots: readonly string[];
  /** Program names of the line (readerClass.ts), resolved on `pathVar`. */
  programs: readonly string[];
  /** The shell that runs the line (absolute). */
  shell: string;
  /** The PATH the line runs with. */
  pathVar: string;
}

/** The absolute, real path of each program of the line found on the PATH, with the helpers it runs. */
export function resolvePrograms(programs: readonly string[], pathVar: string): string[] {
  const out = new Set<string>();
  for (const name of programs) {
    if (name.includes('/')) continue;
    const found = findOnPath(name, absoluteEntries(pathVar));
    if (found === undefined) continue;
    out.add(found);
    const real = realOrSelf(found);
    out.add(real);
    const helper = HELPER_DIRS[name];
    if (helper) {
      if (!helperCache.has(real)) helperCache.set(real, helper(real));
      const dir = helperCache.get(real);
      if (dir !== undefined) out.add(dir);
    }
  }
  return [...out];
}

/** The fence's spec words (native/readonly-fence.h) for one call. */
export function fenceSpecs(plan: FencePlan): string[] {
  const execs = [plan.shell, realOrSelf(plan.shell), ...resolvePrograms(plan.programs, plan.pathVar)];
  systemRoots ??= SYSTEM_READ_ROOTS.filter((p) => existsSync(p));
  const reads = [...systemRoots, ...etcReadable(), ...plan.workspaceRoots.map(realOrSelf)];
  return [
    `T:${plan.scratch}`,
    ...unique(reads).map((p) => `R:${p}`),
    ...DEVICE_ROOTS.map((p) => `D:${p}`),
    ...unique(execs).map((p) => `X:${p}`),
  ];
}

/** The environment a fenced call adds: its scratch folder is its TMPDIR and its HOME; no proxy. */
export function fencedEnv(scratch: string): Record<string, string> {
  return { TMPDIR: scratch, TMP: scratch, TEMP: scratch, HOME: scratch };
}

/** Proxy variables a fenced call drops (it has no network to reach one). */
export const FENCE_UNSET = ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];

/** What of `/etc` a reader may read: every entry but the secrets, folders holding one listed by entry. */
export function etcReadable(root = '/etc', now = Date.now()): string[] {
  if (root === '/etc' && etcCache && now - etcCache.at < ETC_FRESH_MS) return etcCache.paths;
  const secret = ETC_SECRETS.map((g) => new RegExp(`^${g.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`));
  const holdsSecret = (rel: string): boolean => ETC_SECRETS.some((g) => g.startsWith(`${rel}/`));
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const r = rel ? `${rel}/${name}` : name;
      if (secret.some((re) => re.test(r))) continue;
      if (holdsSecret(r) && lstatSync(path.join(dir, name), { throwIfNoEntry: false })?.isDirectory()) walk(path.join(dir, name), r);
      else out.push(path.join(dir, name));
    }
  };
  walk(root, '');
  if (root === '/etc') etcCache = { at: now, paths: out };
  return out;
}

function absoluteEntries(pathVar: string): string {
  return pathVar.split(path.delimiter).filter((d) => path.isAbsolute(d)).join(path.delimiter);
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
