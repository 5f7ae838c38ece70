// What a sandboxed command may touch: the settings (`agentBash.sandbox.*`) and the defaults that let
// ordinary development run without a prompt — read everywhere except secrets, write to the workspace
// folders, a per-session TMPDIR and the package managers' caches, network only to listed hosts.
import { readdirSync } from 'node:fs';
import { writableRealPath } from '../pathWithin';
import { planProtected, type ProtectedPlan } from './mounts/protectedMounts';
import type { SandboxLimits } from './kernel/limits';
import { ENV_FILE, expandSecretPatterns, SECRET_HOME_PATTERNS } from './mounts/secretPaths';
import { planPrivateHome, type PrivateHome } from './mounts/privateHome';
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
  /** `agentBash.sandbox.git.allowWrite`: commits may write `.git` (its config, hooks… stay read-only). */
  gitAllowWrite?: boolean;
  /**
   * `agentBash.sandbox.caches.shareWithHost`: the package stores (CACHE_HOME_PATHS) are the host's
   * own, writable. Off (default): each is a store of the sandbox's own at the same path.
   */
  sharedCaches?: boolean;
  /** `agentBash.sandbox.limits.*` (absent: DEFAULT_SANDBOX_LIMITS). */
  limits?: SandboxLimits;
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

/** Secrets hidden from every sandboxed command, relative to the home directory (secretPaths.ts). */
export const SECRET_HOME_PATHS = SECRET_HOME_PATTERNS;

/**
 * Package-manager stores a sandboxed install or build writes to, relative to the home directory.
 * What is written there is read later by the host's own installs and builds, and none of them
 * checks it all again: a cached packument with its etag, a crate's `build.rs`, a module in
 * `go/pkg/mod`, an object in the Go build cache, a jar in `~/.m2`. So inside the sandbox each of
 * these paths is a store of the sandbox's own (`cacheStore`, never read on the host), unless the
 * user shares the host's (`sharedCaches`). Never `~/.cache` as a whole, nor a store's folders of
 * installed programs (`~/.npm/_npx`, `~/.yarn/bin`, pnpm's global bin).
 */
export const CACHE_HOME_PATHS = [
  '.npm/_cacache',
  '.npm/_logs',
  '.cache/yarn',
  '.yarn/berry/cache',
  '.pnpm-store',
  '.local/share/pnpm/store',
  '.bun/install/cache',
  '.cache/pip',
  '.cache/uv',
  '.cargo/registry',
  '.cargo/git',
  '.rustup/downloads',
  'go/pkg/mod',
  '.cache/go-build',
  '.m2/repository',
  '.gradle/caches',
];

export interface FsPolicy {
  /** Bound read-write (those that exist). */
  writable: string[];
  /** Hidden: empty directory or empty file in their place. */
  denyRead: string[];
  /** Read-only even inside a writable folder. */
  denyWrite: string[];
  /** Folders that do not exist: an empty read-only folder in their place, so none can be made. */
  denyCreate?: string[];
  /** Folders bound onto themselves read-write, before denyWrite: mount points cannot be renamed. */
  selfBinds?: string[];
  /** What the protected mounts could not cover (protectedMounts.ts), one line each. */
  skipped?: string[];
  /** The sandbox's own package stores (`source`, made on use) bound at the host's store paths (`dest`, those that exist). */
  cacheBinds?: Array<{ source: string; dest: string }>;
  /**
   * Protected paths inside those stores (a git dir a workspace's `.git` leads to): bound read-only
   * (`source`) where a command sees them (`dest`, beneath a store's host path).
   */
  readOnlyBinds?: Array<{ source: string; dest: string }>;
  /**
   * Why the workspace folders and allowWrite are read-only for this command (protectedMounts.ts
   * `readOnlyBecause`: a budget passed, a config git could not read); absent when they are writable.
   */
  readOnlyBecause?: string[];
  /**
   * The home folder as the sandbox's own (privateHome.ts): an empty read-only folder with only
   * these paths bound in, read-only. Absent where it cannot be (a writable folder holds the home):
   * the credential stores that exist are then in `denyRead`.
   */
  privateHome?: PrivateHome;
}

export interface PolicyContext {
  home: string;
  workspaceRoots: string[];
  /** The per-session temporary directory (TMPDIR inside). */
  tmpDir: string;
  /** The protected mounts, when the caller planned them already (sandboxRuntime.ts caches one). */
  protectedPlan?: ProtectedPlan;
  /** Where the sandbox's own package stores live (CACHE_HOME_PATHS beneath it); without it, none is writable. */
  cacheStore?: string;
  /** The PATH commands run with (its folders beneath the home are shown in the private home). */
  pathValue?: string;
  /** Further paths beneath the home commands need (Agent Bash's own launcher, a workspace's git dir elsewhere). */
  homeExtra?: readonly string[];
}

/** The sandbox's own package stores, beneath the user's state folder (nothing on the host runs or reads them). */
export function defaultCacheStore(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME !== undefined && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(home, '.local', 'state');
  return path.join(state, 'agent-bash', 'sandbox-caches');
}

/** `~/x` and `~` expand to the home directory; relative paths resolve against the first workspace folder. */
export function expandPath(p: string, ctx: { home: string; base: string }): string {
  if (p === '~') return ctx.home;
  if (p.startsWith('~/')) return path.join(ctx.home, p.slice(2));
  return path.resolve(ctx.base, p);
}

/**
 * `.env`, `.env.local`, `.envrc`, `.envrc.local`… (ENV_FILE) in the home directory and in every folder above a workspace root: the
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
    for (const name of names) if (ENV_FILE.test(name)) out.push(path.join(dir, name));
  }
  return out;
}

/** The sandbox's own package stores, bound at the host's store paths (none when the host's are shared). */
function cacheBindsFor(settings: SandboxSettings, ctx: PolicyContext): Array<{ source: string; dest: string }> {
  return settings.sharedCaches === true || ctx.cacheStore === undefined ? [] : CACHE_HOME_PATHS.map((p) => ({ source: path.join(ctx.cacheStore as string, p), dest: path.join(ctx.home, p) }));
}

/** Of the plan's read-only paths, those in a store of the sandbox's own, as bound where a command sees them. */
function storeReadOnly(readOnly: readonly string[], cacheBinds: ReadonlyArray<{ source: string; dest: string }>): Array<{ source: string; dest: string }> {
  const out: Array<{ source: string; dest: string }> = [];
  for (const p of readOnly) {
    const b = cacheBinds.find((c) => p === c.source || p.startsWith(`${c.source}/`));
    if (b) out.push({ source: p, dest: b.dest + p.slice(b.source.length) });
  }
  return out;
}

export function resolveFsPolicy(settings: SandboxSettings, ctx: PolicyContext): FsPolicy {
  const plan = ctx.protectedPlan ?? planFor(settings, ctx);
  const cacheBinds = cacheBindsFor(settings, ctx);
  const inStores = storeReadOnly(plan.readOnly, cacheBinds);
  const inStore = new Set(inStores.map((b) => b.source));
  const privateHome = planPrivateHome({ home: ctx.home, writable: writableRoots(settings, ctx), pathValue: ctx.pathValue, extra: ctx.homeExtra });
  const hidden = (p: string): boolean => privateHome !== undefined && (p === ctx.home || p.startsWith(`${ctx.home}/`)) && !privateHome.binds.some((b) => p === b || p.startsWith(`${b}/`));
  // What the private home does not show needs no mask of its own.
  const denyRead = [...secretsOutside(ctx), ...envFilesOutside(ctx)].filter((p) => !hidden(p));
  const withHome = privateHome ? { privateHome } : {};
  // A plan that cannot protect all it should (a budget passed): the folders it covers are
  // read-only for the command, so no mount it lacks matters; TMPDIR and the stores stay writable.
  if (plan.readOnlyBecause.length > 0) {
    const scanned = new Set([...realWorkspaceRoots(settings, ctx), ...realAllowWrite(settings, ctx)]);
    // What the plan protects in the folders that stay writable (TMPDIR, the stores) stays read-only.
    const outside = plan.readOnly.filter((p) => ![...scanned].some((r) => p === r || p.startsWith(`${r}/`)) && !inStore.has(p));
    return {
      writable: writableRoots(settings, ctx).filter((w) => !scanned.has(w)),
      denyRead: [...denyRead, ...settings.denyRead.map((p) => expandSetting(p, ctx))],
      denyWrite: [...outside, ...settings.denyWrite.map((p) => expandSetting(p, ctx))],
      denyCreate: [],
      selfBinds: [],
      skipped: plan.skipped,
      cacheBinds,
      readOnlyBinds: inStores,
      readOnlyBecause: plan.readOnlyBecause,
      ...withHome,
    };
  }
  return {
    writable: writableRoots(settings, ctx),
    denyRead: [...denyRead, ...settings.denyRead.map((p) => expandSetting(p, ctx))],
    denyWrite: [...plan.readOnly.filter((p) => !inStore.has(p)), ...settings.denyWrite.map((p) => expandSetting(p, ctx))],
    denyCreate: plan.placeholders,
    selfBinds: plan.selfBinds,
    skipped: plan.skipped,
    cacheBinds,
    readOnlyBinds: inStores,
    ...withHome,
  };
}

/** The credential stores that exist, except one holding a workspace folder (it would hide the work). */
function secretsOutside(ctx: PolicyContext): string[] {
  return expandSecretPatterns(ctx.home).filter((p) => !ctx.workspaceRoots.some((root) => root === p || root.startsWith(`${p}/`)));
}

function expandSetting(p: string, ctx: PolicyContext): string {
  return expandPath(p, { home: ctx.home, base: ctx.workspaceRoots[0] ?? ctx.home });
}

/** The writable folders as named (workspace, TMPDIR, shared stores, allowWrite), before resolving. */
function namedWritable(settings: SandboxSettings, ctx: PolicyContext): string[] {
  const caches = settings.sharedCaches === true ? CACHE_HOME_PATHS.map((p) => path.join(ctx.home, p)) : [];
  return [...ctx.workspaceRoots, ctx.tmpDir, ...caches, ...settings.allowWrite.map((p) => expandSetting(p, ctx))];
}

/**
 * A writable folder by its real path (pathWithin.ts writableRealPath): bubblewrap cannot mount onto
 * a destination reached through a symlink ("Can't mkdir"), and a plan of unresolved names misses
 * what lies there. Not through a symlink inside another writable folder (a command could have made it).
 */
function resolveWritable(p: string, settings: SandboxSettings, ctx: PolicyContext): string {
  return writableRealPath(p, namedWritable(settings, ctx));
}

/** The workspace folders as the sandbox binds and plans them (resolveWritable). */
export function realWorkspaceRoots(settings: SandboxSettings, ctx: PolicyContext): string[] {
  return ctx.workspaceRoots.map((r) => resolveWritable(r, settings, ctx));
}

/** `allowWrite` as the sandbox binds and plans it (resolveWritable). */
function realAllowWrite(settings: SandboxSettings, ctx: PolicyContext): string[] {
  return settings.allowWrite.map((p) => resolveWritable(expandSetting(p, ctx), settings, ctx));
}

/** The folders a sandboxed command may write in general: the workspace, TMPDIR, allowWrite, the shared stores. */
export function writableFolders(settings: SandboxSettings, ctx: PolicyContext): string[] {
  return writableRoots(settings, ctx);
}

function writableRoots(settings: SandboxSettings, ctx: PolicyContext): string[] {
  return namedWritable(settings, ctx).map((p) => resolveWritable(p, settings, ctx));
}

/**
 * The protected mounts (protectedMounts.ts) for these settings: every `.git` under the workspace
 * folders and allowWrite, the workspace's protected names (WORKSPACE_PROTECTED_PATHS and its
 * `*.code-workspace` files) — except the paths listed in allowWrite.
 */
export function planFor(settings: SandboxSettings, ctx: PolicyContext, searchAll = false): ProtectedPlan {
  const allowWrite = realAllowWrite(settings, ctx);
  const workspaceRoots = realWorkspaceRoots(settings, ctx);
  return planProtected({
    searchAll,
    roots: [...workspaceRoots, ...allowWrite],
    workspaceRoots,
    gitAllowWrite: settings.gitAllowWrite === true,
    opened: allowWrite,
    // A repository may lead into any folder a command can write that outlives it.
    writable: [...writableRoots(settings, ctx), ...cacheBindsFor(settings, ctx).map((b) => b.source)],
    home: ctx.home,
  });
}
