// The home folder a sandboxed command sees: its own. An empty read-only folder is mounted at the
// home path, and only what commands need is bound into it from the real one, read-only: git's own
// settings, the folders of installed programs and toolchains, build tools' caches, the PATH's
// folders beneath the home, Agent Bash's own files. A credential store is never among them, so one
// that the host creates while a command runs (`gh auth login`, `npm login`, `docker login`, a new
// `~/.aws/credentials`) is nowhere in the command's view: hiding by masks covers only what exists
// when the command starts. What lies beneath the home and is not listed (sibling projects, documents,
// shell start-up files, which often export tokens) is out of sight too.
import { lstatSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { ENV_FILE, SECRET_HOME_PATTERNS } from './secretPaths';
import { within, realOrUndefined } from '../../pathWithin';

/**
 * What of the home folder is bound in (read-only, those that exist), relative to it. A path that
 * holds a credential store (`.config/git` holds `credentials`) is bound entry by entry without it.
 */
export const HOME_VISIBLE_PATHS = [
  // git's own settings (the global config, its ignore and attributes files).
  '.gitconfig', '.config/git', '.gitignore_global', '.gitignore', '.gitattributes', '.editorconfig',
  // Version pins tools read from the home folder.
  '.tool-versions', '.python-version', '.node-version', '.nvmrc', '.ruby-version',
  // Programs installed for the user, and their libraries.
  '.local/bin', '.local/lib', '.local/share/pnpm', '.local/share/mise', '.local/share/fnm', '.local/share/uv', '.local/share/pipx',
  '.local/pipx', '.local/share/virtualenvs', '.local/share/gem', '.config/mise',
  // direnv runs inside the sandbox (direnv.ts): what you allowed, and its own settings.
  '.local/share/direnv', '.config/direnv',
  // Toolchains and version managers.
  '.cargo/bin', '.cargo/env', '.cargo/config.toml', '.cargo/config', '.rustup', '.nvm', '.fnm', '.volta', '.nodenv', '.pyenv', '.rbenv',
  '.rvm', '.asdf', '.sdkman', '.jenv', '.goenv', 'go', 'sdk', '.deno', '.bun', '.jdks', '.dotnet', '.nuget/packages', '.ghcup', '.cabal',
  '.stack', '.elan', '.opam', '.julia', '.juliaup', '.conda', 'miniconda3', 'anaconda3', 'miniforge3', 'mambaforge', '.pub-cache',
  '.composer/vendor', '.config/composer/vendor', '.gradle/wrapper', '.sbt', '.ivy2', '.konan',
  // Package managers' folders of installed programs and build tools' caches (node-gyp headers,
  // browsers for test runners…); the package stores within are the sandbox's own (sandboxPolicy.ts).
  '.npm', '.yarn', '.node-gyp', '.cache',
];

export interface PrivateHome {
  /** The home folder as the kernel sees it (a symlinked home is mounted at its target). */
  home: string;
  /** Paths beneath it bound read-only at the same place, parents before what is inside them. */
  binds: string[];
}

const segmentRe = (segment: string): RegExp => new RegExp(`^${segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
const SECRET_SEGMENTS = SECRET_HOME_PATTERNS.map((p) => p.split('/').map(segmentRe));

/** `rel` (home-relative) is a credential store or lies in one (a home `.env*` file counts). */
export function insideSecret(rel: string): boolean {
  const segs = rel.split('/');
  if (segs.length >= 1 && ENV_FILE.test(segs[0])) return true;
  return SECRET_SEGMENTS.some((pat) => pat.length <= segs.length && pat.every((re, i) => re.test(segs[i])));
}

/** A credential store may lie beneath `rel` (home-relative). */
export function holdsSecret(rel: string): boolean {
  const segs = rel.split('/');
  return SECRET_SEGMENTS.some((pat) => pat.length > segs.length && segs.every((s, i) => pat[i].test(s)));
}

export interface PrivateHomeOptions {
  home: string;
  /** The folders commands may write (workspace folders, allowWrite…): the home must not be one of them or inside one. */
  writable: readonly string[];
  /** The PATH commands run with: its folders beneath the home are bound too. */
  pathValue?: string;
  /** Further paths commands need (Agent Bash's own launcher, a workspace's git dir elsewhere). */
  extra?: readonly string[];
}

/**
 * The plan, or undefined where the home cannot be the sandbox's own: no such folder, `/`, or a
 * folder a command may write is the home or holds it (then the credential stores are masked as
 * they are found, sandboxPolicy.ts).
 */
export function planPrivateHome(opts: PrivateHomeOptions): PrivateHome | undefined {
  const key = JSON.stringify([opts.home, opts.writable, opts.pathValue ?? '', opts.extra ?? []]);
  const cached = recent.get(key);
  if (cached !== undefined && Date.now() - cached.at < PLAN_FRESH_MS) return cached.plan;
  const plan = planAnew(opts);
  if (recent.size >= 64) recent.clear();
  recent.set(key, { at: Date.now(), plan });
  return plan;
}

/**
 * How long a plan is reused for the same inputs (each command's spawn and the persistent shells'
 * key ask for it; a path that appears meanwhile is bound from the next plan on).
 */
const PLAN_FRESH_MS = 2000;
const recent = new Map<string, { at: number; plan: PrivateHome | undefined }>();

function planAnew(opts: PrivateHomeOptions): PrivateHome | undefined {
  if (!path.isAbsolute(opts.home)) return undefined;
  const home = realOrUndefined(opts.home);
  if (home === undefined || home === '/' || !lstatSync(home).isDirectory()) return undefined;
  for (const w of opts.writable) {
    const rw = realOrUndefined(w) ?? w;
    if (within(home, rw) || within(opts.home, w)) return undefined;
  }
  const binds: string[] = [];
  const add = (rel: string): void => {
    if (rel === '' || rel.startsWith('..') || insideSecret(rel)) return;
    const abs = path.join(home, rel);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isSymbolicLink()) {
      // Bound by what it names (bubblewrap follows it): never a credential store of the home.
      const target = realOrUndefined(abs);
      if (target === undefined) return;
      if (within(target, home)) {
        const targetRel = path.relative(home, target);
        if (targetRel === '' || insideSecret(targetRel) || holdsSecret(targetRel)) return;
      }
      if (holdsSecret(rel)) return;
      binds.push(abs);
      return;
    }
    if (!holdsSecret(rel)) {
      binds.push(abs);
      return;
    }
    if (!st.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(abs);
    } catch {
      return;
    }
    for (const name of names.sort()) add(`${rel}/${name}`);
  };
  const rels = new Set(HOME_VISIBLE_PATHS);
  for (const p of [...(opts.pathValue ?? '').split(':'), ...(opts.extra ?? [])]) {
    if (!path.isAbsolute(p)) continue;
    const resolved = path.resolve(p);
    // Through the home's own path or its real one.
    for (const base of new Set([opts.home, home])) if (within(resolved, base) && resolved !== base) rels.add(path.relative(base, resolved));
  }
  for (const rel of rels) add(rel);
  // Parents first; what a bound parent already shows is left out.
  const sorted = [...new Set(binds)].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  const out: string[] = [];
  for (const b of sorted) if (!out.some((o) => within(b, o))) out.push(b);
  return { home, binds: out };
}
