// What a sandboxed command may touch: the settings (`agentBash.sandbox.*`) and the defaults that let
// ordinary development run without a prompt — read everywhere except secrets, write to the workspace
// folders, a per-session TMPDIR and the package managers' caches, network only to listed hosts.
import { existsSync, readdirSync } from 'node:fs';
import { WORKSPACE_PROTECTED_PATHS } from '../../core/policy/protectedPaths';
import * as path from 'node:path';

export type SandboxMode = 'auto' | 'on' | 'off';

export interface SandboxSettings {
  enabled: SandboxMode;
  /** `prompt` decisions run without asking when they run sandboxed. */
  autoApprove: boolean;
  allowWrite: string[];
  denyRead: string[];
  denyWrite: string[];
  allowedDomains: string[];
  /** `agentBash.sandbox.env.allow`: host variables (names or `*` globs) a sandboxed command also sees (sandboxEnv.ts). */
  envAllow?: string[];
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  enabled: 'auto',
  autoApprove: false,
  allowWrite: [],
  denyRead: [],
  denyWrite: [],
  allowedDomains: [],
};

/** The package registries offered as one click (npm, PyPI, crates.io). */
export const PACKAGE_REGISTRY_DOMAINS = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'index.crates.io',
  'static.crates.io',
];

/** Secrets hidden from every sandboxed command, relative to the home directory. */
export const SECRET_HOME_PATHS = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.gnupg',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.docker/config.json',
  '.kube',
  '.git-credentials',
  '.config/gh',
];

/** Package-manager caches a sandboxed install or build writes to, relative to the home directory. */
export const CACHE_HOME_PATHS = [
  '.npm',
  '.cache',
  '.yarn',
  '.pnpm-store',
  '.local/share/pnpm',
  '.bun/install/cache',
  '.cargo/registry',
  '.cargo/git',
  '.rustup/downloads',
  'go/pkg/mod',
  '.m2/repository',
  '.gradle/caches',
];

/**
 * Of the workspace paths that run later outside the sandbox or hold an agent's rules
 * (WORKSPACE_PROTECTED_PATHS, read-only inside the sandbox unless listed in `allowWrite`), the one
 * protected even where it does not exist yet: an empty read-only folder is mounted in its place.
 */
export const WORKSPACE_PROTECTED_ALWAYS = '.vscode';

export interface FsPolicy {
  /** Bound read-write (those that exist). */
  writable: string[];
  /** Hidden: empty directory or empty file in their place. */
  denyRead: string[];
  /** Read-only even inside a writable folder. */
  denyWrite: string[];
  /** Folders that do not exist: an empty read-only folder in their place, so none can be made. */
  denyCreate?: string[];
}

export interface PolicyContext {
  home: string;
  workspaceRoots: string[];
  /** The per-session temporary directory (TMPDIR inside). */
  tmpDir: string;
}

/** `~/x` and `~` expand to the home directory; relative paths resolve against the first workspace folder. */
export function expandPath(p: string, ctx: { home: string; base: string }): string {
  if (p === '~') return ctx.home;
  if (p.startsWith('~/')) return path.join(ctx.home, p.slice(2));
  return path.resolve(ctx.base, p);
}

/**
 * `.env`, `.env.local`… in the home directory and in every folder above a workspace root: the
 * ones inside a workspace are the project's own and stay readable.
 */
export function envFilesOutside(ctx: PolicyContext): string[] {
  const dirs = new Set<string>([ctx.home]);
  for (const root of ctx.workspaceRoots) {
    for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
      dirs.add(dir);
      if (dir === path.dirname(dir)) break;
    }
  }
  const out: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) if (/^\.env(\..*)?$/.test(name)) out.push(path.join(dir, name));
  }
  return out;
}

export function resolveFsPolicy(settings: SandboxSettings, ctx: PolicyContext): FsPolicy {
  const base = ctx.workspaceRoots[0] ?? ctx.home;
  const expand = (p: string): string => expandPath(p, { home: ctx.home, base });
  const allowWrite = settings.allowWrite.map(expand);
  const protectedPaths = workspaceProtected(ctx.workspaceRoots).filter((p) => !allowWrite.includes(p.path));
  return {
    writable: [...ctx.workspaceRoots, ctx.tmpDir, ...CACHE_HOME_PATHS.map((p) => path.join(ctx.home, p)), ...allowWrite],
    denyRead: [...SECRET_HOME_PATHS.map((p) => path.join(ctx.home, p)), ...envFilesOutside(ctx), ...settings.denyRead.map(expand)],
    denyWrite: [...protectedPaths.filter((p) => p.exists).map((p) => p.path), ...settings.denyWrite.map(expand)],
    denyCreate: protectedPaths.filter((p) => !p.exists).map((p) => p.path),
  };
}

/**
 * The protected paths of every workspace folder (WORKSPACE_PROTECTED_PATHS, plus its
 * `*.code-workspace` files, whose settings apply like `.vscode`'s): those that exist, and the
 * `.vscode` folder where it does not.
 */
function workspaceProtected(roots: readonly string[]): Array<{ path: string; exists: boolean }> {
  const out: Array<{ path: string; exists: boolean }> = [];
  for (const root of roots) {
    for (const rel of WORKSPACE_PROTECTED_PATHS) {
      const p = path.join(root, rel);
      if (existsSync(p)) out.push({ path: p, exists: true });
      else if (rel === WORKSPACE_PROTECTED_ALWAYS) out.push({ path: p, exists: false });
    }
    let names: string[] = [];
    try {
      names = readdirSync(root);
    } catch {
      // An unreadable folder: nothing to list.
    }
    for (const name of names) if (name.endsWith('.code-workspace')) out.push({ path: path.join(root, name), exists: true });
  }
  return out;
}
