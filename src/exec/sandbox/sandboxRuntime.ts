// The one wrapper every spawn point calls: `(argv, {cwd, env, sandbox}) → {file, args, env}`. It
// decides, per call and from the current settings, between
//   - sandboxed: bubblewrap with the filesystem policy, no network but the filtering proxy, user,
//     PID, IPC, UTS and cgroup namespaces (namespaces.ts), one seccomp filter (seccompFilter.ts),
//     an allowlisted environment (sandboxEnv.ts) and no stray descriptors (launcher.ts);
//   - contained: bubblewrap with the whole filesystem, only the PID namespace + die-with-parent
//     (sandbox off, `sandbox: "off"` calls, bang commands);
//   - plain: the argv as given, where bubblewrap cannot run (the group kill and the environment-mark
//     sweep are then all the containment there is).
// It owns the per-session TMPDIR and the network proxy, and removes both on dispose. Sandboxed
// commands share one network namespace and proxy (sharedNetwork.ts) and tell the proxy who they are
// by the user name of their proxy URL, so each hears only its own refusals; until that namespace
// listens a command waits for it, and where it cannot start a command has no network at all.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, rmdirSync, rmSync, utimesSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { confineArgs, containArgs, PROXY_PORT, type Confinement } from './bwrapArgs';
import { launcherArgv, type LauncherNetwork, type LaunchSpec } from './launcher';
import { nativeLaunch, nativeOuterArgv } from './kernel/nativeLaunch';
import { NetworkProxy, type Refusal } from './network/networkProxy';
import { SharedNetwork } from './network/sharedNetwork';
import { makeOwnedTempDir } from './cleanup/tempSweep';
import { envArgs, sandboxEnv } from './sandboxEnv';
import { writeSeccompFilter } from './kernel/seccompFilter';
import { landlockAbiProblem, landlockNotice, landlockSupport } from './kernel/landlock';
import { findOnPath, probeSandbox, type SandboxSupport } from './sandboxProbe';
import { addUntrustedFolders, hostProgram } from '../hostPrograms';
import { realPath } from '../pathWithin';
import { defaultCacheStore, planFor, realWorkspaceRoots, resolveFsPolicy, writableFolders, type FsPolicy, type PolicyContext, type SandboxSettings } from './sandboxPolicy';
import { gitSensitivePaths, type ProtectedPlan } from './mounts/protectedMounts';
import { compareSnapshots, moveAsideCreated, protectedChangeNotice, readOnlyNotice, skippedNotice, snapshotProtected, type Snapshot } from './mounts/protectedCheck';
import { bwrapHasSize, CGROUP_ENTER_SCRIPT, CommandCgroups, DEFAULT_SANDBOX_LIMITS, limitHitsInOutput, limitNotice, nprocPrefix, type LimitCounts, type SandboxLimits } from './kernel/limits';
import { planMasks, type MaskedProgram } from './mounts/denyMasks';
import { confinedMover, gitLocations, quarantineChanged, quarantineCreated } from './mounts/newRepoQuarantine';
import type { ReadOnlyCapability, SandboxWatch } from '../../core/pipeline';
import { fenceSupport } from './readOnly/readOnlySupport';
import { FENCE_UNSET, fencedEnv, fenceSpecs } from './readOnly/readOnlyFence';

export type SandboxLevel = 'sandboxed' | 'contained' | 'plain';

/** `sandbox: "on"` where it cannot start: nothing runs, and the message says what to install. */
export class SandboxUnavailableError extends Error {}

export const sandboxUnavailableMessage = (problem: string): string =>
  `The OS sandbox is on (agentBash.sandbox.enabled: "on") but cannot start: ${problem}. Nothing was run.`;
export const sandboxFallbackWarning = (problem: string): string =>
  `Agent Bash: commands run without the OS sandbox: ${problem}.`;

/** Marks a sandboxed process's environment, so a command (or a test) can tell where it runs. */
export const SANDBOX_ENV = 'AGENT_BASH_SANDBOX';

/** Refusals one command's result can list (the notice names hosts once each anyway). */
const MAX_REFUSALS_PER_COMMAND = 1000;

const PROXY_ENV = ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'all_proxy'];
const NO_PROXY_ENV = ['NO_PROXY', 'no_proxy'];

export interface SandboxRuntimeOptions {
  settings: () => SandboxSettings;
  workspaceRoots: () => string[];
  home?: string;
  /** Where the sandbox's own package stores live (default: sandboxPolicy.ts defaultCacheStore). */
  cacheStore?: string;
  /** Replaces the machine probe (tests: an unavailable machine). */
  probe?: () => SandboxSupport;
  /** Told once when `auto` falls back to running unsandboxed. */
  onFallback?: (message: string) => void;
  /** Programs the deny rules name whole (denyMasks.ts): masked inside the sandbox. */
  maskedPrograms?: () => readonly MaskedProgram[];
}

/** Names each command's cgroups, unique in this process (runtimes come and go; a busy one lingers). */
let cgroupCount = 0;

const CREATED = ' was created';
const CHANGED = ' was changed';

/** How long a protected plan is reused by the next wrap (the pipeline plans right before it). */
const PLAN_FRESH_MS = 2000;

export interface WrapOptions {
  env: Record<string, string>;
  /**
   * The first descriptor that is not the spawn's own (default 3: after stdio; a persistent shell,
   * whose fd 3 is its status pipe, says 4). Every other descriptor is closed before the command
   * starts (launcher.ts). `none`: node-pty, whose stdio is a terminal made for the command.
   */
  fdSlot?: number | 'none';
  /**
   * Variables the call set on purpose (its `env` parameter and the project's direnv values, judged
   * by the policy): they pass the sandbox's environment allowlist (sandboxEnv.ts).
   */
  given?: Readonly<Record<string, string>>;
  /** `off`: this call runs outside the sandbox (still contained). */
  sandbox?: 'off';
  /**
   * The read-only fence's run (wrapFenced): no network at all (a namespace of its own with nothing
   * in it, no proxy), and this scratch folder as its TMPDIR and HOME.
   */
  fencedScratch?: string;
  /** Hears each refused network request of this process. */
  onRefused?: (refusal: Refusal) => void;
  /**
   * An auto-approved read (core/policy/checks/readerClass.ts): the command runs under the read-only fence
   * (readOnly/readOnlyFence.ts) with no network at all, and may start only these programs (names,
   * found on the command's PATH). Where the fence cannot hold, the spawn is refused: never run unfenced.
   */
  readOnly?: { programs: readonly string[] };
}

/** What a persistent shell's subshell needs to fence one call (readOnly/readOnlyFence.ts). */
export interface CallFence {
  /** The builtin's spec words. */
  specs: string[];
  /** The call's scratch folder (made by the fence; removed by the shell after the call). */
  scratch: string;
  /** Variables the fenced call sets (its TMPDIR and HOME are the scratch folder). */
  env: Record<string, string>;
  /** Variables it drops (the proxy: there is no network). */
  unset: readonly string[];
}

export interface WrappedSpawn {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Descriptors (ours) the spawn must put at `fdSlot`, `fdSlot + 1`… (none today: the launcher opens what bwrap reads). */
  passFds?: number[];
  level: SandboxLevel;
  /**
   * What the process was confined with (sandboxed only): a long-lived shell whose key differs from
   * `mountKey()` now runs under stale mounts (sandboxRuntime.ts `mountKey`).
   */
  mountKey?: string;
  /** Network requests refused so far. */
  refusals: readonly Refusal[];
  /**
   * The processes of its cgroup now (host pids: the launcher's, the sandbox's, and what they started,
   * escaped or not); absent or undefined where it has none.
   */
  members?(): number[] | undefined;
  /** Call once the process has exited: closes its proxy. */
  dispose(): void;
}

interface SharedListener {
  refusals: Refusal[];
  onRefused?: (refusal: Refusal) => void;
}

export class SandboxRuntime {
  private dir: string | undefined;
  private proxies = 0;
  private warned = false;
  private filterWritten = false;
  private sleep: string | undefined;
  /** Why the last sandboxed spawn ran without the Landlock ruleset (landlock.ts), for the result. */
  private landlockProblem: string | undefined;
  private shared: { network: SharedNetwork; proxy: NetworkProxy; listeners: Map<string, SharedListener> } | undefined;
  private planCache: { plan: ProtectedPlan; key: string; at: number } | undefined;
  /** Every `.git` (and gitdir target) found at the last command's end (newRepoQuarantine.ts). */
  private knownGits: Set<string> | undefined;
  /**
   * Repositories a sandboxed command made (seen new at a command's end), with the sandboxed
   * processes alive then: their mounts predate the repository, so they could still write its
   * config or hooks. Checked again at each command's end where those changed, until none of those
   * processes is left (from then on only the person can change them: the next sandboxes mount them read-only).
   */
  private readonly madeRepos = new Map<string, Set<number>>();
  /** Ids of the sandboxed processes not disposed yet. */
  private readonly liveIds = new Set<number>();
  private spawnCount = 0;
  /** Where each workspace folder's `.git` pointer leads, by the pointer's state (homeExtra). */
  private readonly gitDirsOutside = new Map<string, string[]>();
  /** The protected set's state at the last command's end (after its check). */
  private lastSnapshot: Snapshot | undefined;
  /**
   * Sandboxed processes not disposed yet, and the empty placeholder folders bubblewrap made for
   * them in the workspace (mount points for protected names that did not exist): removed once no
   * sandboxed process is left, so the workspace keeps only what commands made (never earlier:
   * removing a mount point detaches the mount in a running sandbox).
   */
  private liveSandboxed = 0;
  private readonly placeholdersMade = new Set<string>();
  /** Of each folder placeholders were made in: its entries and times before (restored when they are the same again). */
  private readonly placeholderParents = new Map<string, { names: string; atime: number; mtime: number }>();
  private readonly liveCgroups = new Set<CommandCgroups>();
  private readonly busyCgroups = new Set<CommandCgroups>();
  private readonly closedCounts: LimitCounts = { processes: 0, memory: 0 };

  /** Removes this runtime's writable folders from those host programs are never taken from (on dispose). */
  private untrustedRegistration: (() => void) | undefined;

  constructor(private readonly options: SandboxRuntimeOptions) {
    this.registerUntrusted();
  }

  /** What a sandboxed command may write is no place to find a host program in (hostPrograms.ts). */
  private registerUntrusted(): void {
    this.untrustedRegistration ??= addUntrustedFolders(() => {
      const home = this.options.home ?? os.homedir();
      const ctx: PolicyContext = { home, workspaceRoots: this.options.workspaceRoots(), tmpDir: this.dir ?? os.tmpdir(), cacheStore: this.options.cacheStore ?? defaultCacheStore(home) };
      return [...writableFolders(this.options.settings(), ctx), ctx.cacheStore as string];
    });
  }

  support(): SandboxSupport {
    return (this.options.probe ?? probeSandbox)();
  }

  /** How a call would run now; throws SandboxUnavailableError for `on` without a sandbox. */
  levelFor(sandbox?: 'off'): SandboxLevel {
    const support = this.support();
    const mode = this.options.settings().enabled;
    if (mode === 'off' || sandbox === 'off') return support.contain ? 'contained' : 'plain';
    if (support.sandbox) return 'sandboxed';
    const problem = support.problem ?? 'unknown reason';
    if (mode === 'on') throw new SandboxUnavailableError(sandboxUnavailableMessage(problem));
    if (!this.warned) {
      this.warned = true;
      this.options.onFallback?.(sandboxFallbackWarning(problem));
    }
    return support.contain ? 'contained' : 'plain';
  }

  /** The per-session TMPDIR of sandboxed commands (created on first use). */
  tmpDir(): string {
    return path.join(this.baseDir(), 'tmp');
  }

  /** Whether an auto-approved read would run fenced now (the pipeline asks before it runs one). */
  readOnly(sandbox?: 'off'): ReadOnlyCapability {
    let level: SandboxLevel;
    try {
      level = this.levelFor(sandbox);
    } catch (err) {
      return { enforced: false, why: err instanceof Error ? err.message : String(err) };
    }
    const support = fenceSupport(level);
    return support.enforced ? { enforced: true } : { enforced: false, ...(support.why ? { why: support.why } : {}) };
  }

  /** The builtin a persistent shell loads to fence its calls, where the fence holds and it was built. */
  fenceBuiltin(sandbox?: 'off'): string | undefined {
    try {
      return fenceSupport(this.levelFor(sandbox)).builtin;
    } catch {
      return undefined;
    }
  }

  /** One call's fence in a persistent shell started with `shell` on `pathVar`. */
  callFence(programs: readonly string[], shell: string, pathVar: string): CallFence {
    const scratch = path.join(this.tmpDir(), `ro-${process.pid}-${++fenceCount}-${Date.now().toString(36)}`);
    const specs = fenceSpecs({ scratch, workspaceRoots: this.options.workspaceRoots(), programs, shell: absoluteShell(shell, pathVar), pathVar });
    return { specs, scratch, env: fencedEnv(scratch), unset: FENCE_UNSET };
  }

  wrap(argv: readonly string[], opts: WrapOptions): WrappedSpawn {
    this.registerUntrusted();
    const level = this.levelFor(opts.sandbox);
    if (opts.readOnly) return this.wrapFenced(argv, opts, level, opts.readOnly.programs);
    const support = this.support();
    const plain = { refusals: [] as Refusal[], dispose: () => undefined };
    if (level === 'plain') return { file: argv[0], args: argv.slice(1), env: opts.env, level, ...plain };
    const bwrap = support.bwrap as string;
    if (level === 'contained') return { file: bwrap, args: containArgs(argv), env: opts.env, level, ...plain };

    const settings = this.options.settings();
    const tmpDir = this.tmpDir();
    const callEnv = opts.env as Partial<Record<string, string>>;
    // direnv's allowed list and settings where the shell's XDG folders put them (privateHome.ts);
    // folders the call named itself widen nothing, as with its PATH (homePathValue).
    const xdg = (['XDG_DATA_HOME', 'XDG_CONFIG_HOME'] as const).filter((k) => opts.given?.[k] === undefined).map((k) => callEnv[k]).filter((d): d is string => d !== undefined && path.isAbsolute(d)).map((d) => path.join(d, 'direnv'));
    const pathValue = homePathValue(callEnv.PATH ?? process.env.PATH ?? '', opts.given?.PATH, process.env.PATH ?? '');
    const ctx: PolicyContext = { ...this.policyContext(), pathValue, homeExtra: [...this.homeExtra(), ...xdg] };
    const fs = resolveFsPolicy(settings, { ...ctx, protectedPlan: this.protectedPlan(false) });
    const limits = this.limits();
    const tmpfs = limits.tmpMiB > 0 && bwrapHasSize(support.bwrap as string) ? { path: tmpDir, bytes: limits.tmpMiB * 1024 * 1024 } : undefined;
    const masks = planMasks(this.options.maskedPrograms?.() ?? [], (opts.env.PATH as string | undefined) ?? process.env.PATH ?? '', path.join(this.baseDir(), 'masks')).masks;
    const cgroups = this.cgroupsFor(limits);
    // Without a pids cgroup, the process limit is RLIMIT_NPROC inside (limits.ts).
    const nproc = cgroups?.has('pids') ? [] : nprocPrefix(limits.processes);
    // Writes only beneath the writable folders, named pipes included (landlock.ts); not through a
    // perl a deny rule masked (the stand-in would refuse, and the command would never run).
    // The compiled launcher (nativeLaunch.ts) does the same steps in fewer execs; else the scripts.
    const native = nativeLaunch();
    let inside: Partial<Confinement>;
    if (native) {
      this.landlockProblem = landlockAbiProblem(native.abi);
      inside = { nativeInner: { launch: native, nproc: cgroups?.has('pids') ? 0 : limits.processes, landlock: this.landlockProblem === undefined } };
    } else {
      const landlock = landlockSupport(hostProgram('perl') ?? hostProgram('perl', '/usr/bin:/bin'));
      const perlMasked = landlock.perl !== undefined && masks.some((m) => m.path === landlock.perl);
      this.landlockProblem = perlMasked ? 'perl is masked by a deny rule' : landlock.problem;
      inside = {
        ...(nproc.length ? { innerPrefix: nproc } : {}),
        ...(landlock.perl !== undefined && landlock.abi !== undefined && !perlMasked ? { landlock: { perl: landlock.perl, abi: landlock.abi } } : {}),
      };
    }
    const extra = {
      ...(tmpfs ? { tmpfs } : {}),
      ...(masks.length ? { masks } : {}),
      ...inside,
    };
    // The host's environment stops here (sandboxEnv.ts): only the allowlist and what the call gave.
    const env: Record<string, string> = {
      ...sandboxEnv(opts.env, { ...(opts.given ? { given: opts.given } : {}), allow: settings.envAllow ?? [] }),
      TMPDIR: tmpDir,
      TMP: tmpDir,
      TEMP: tmpDir,
      [SANDBOX_ENV]: '1',
    };
    for (const name of NO_PROXY_ENV) delete env[name];

    // Every route runs under the filter (launcher.ts): none gets a network bridge of its own, so a
    // command that starts before the shared namespace serves waits for it, and one where it cannot
    // serve runs with loopback only.
    if (opts.fencedScratch !== undefined) Object.assign(env, fencedEnv(opts.fencedScratch));
    const shared = opts.fencedScratch !== undefined ? undefined : this.sharedNetwork();
    let network: LauncherNetwork = { kind: 'none' };
    let token: string | undefined;
    const listener: SharedListener = { refusals: [], onRefused: opts.onRefused };
    if (shared) {
      const enter = shared.network.enterArgv();
      if (enter) network = { kind: 'enter', options: enter.slice(1, -1) };
      else if (shared.network.failure() === undefined) network = { kind: 'wait', file: this.networkStateFile() };
      token = `agent-bash-${process.pid}-${++this.proxies}`;
      shared.listeners.set(token, listener);
      for (const name of PROXY_ENV) env[name] = `http://${token}@127.0.0.1:${PROXY_PORT}`;
    }
    // Descriptors below the slot are the spawn's own (a persistent shell's status pipe at 3).
    const slot = opts.fdSlot === undefined || opts.fdSlot === 'none' ? 3 : opts.fdSlot;
    const keep = Array.from({ length: slot - 3 }, (_, i) => 3 + i);
    const terminal = opts.fdSlot === 'none';
    // The command's cgroups (limits.ts) are entered first, then the launcher runs as before.
    const spec: LaunchSpec = {
      bash: support.bash as string,
      nsenter: support.nsenter ?? '',
      sleep: (this.sleep ??= hostProgram('sleep') ?? '/bin/sleep'),
      keep,
      filterFile: this.filterPath(),
      filterFd: slot,
      network,
      bwrapArgv: [bwrap, ...envArgs(env), ...confineArgs({ fs, seccompFd: slot, terminal, ...extra }, argv)],
    };
    const [file, ...args] = native ? nativeOuterArgv(native, spec, cgroups?.procsFiles ?? []) : withCgroups(cgroups, launcherArgv(spec));
    for (const p of fs.denyCreate ?? []) {
      if (lstatSync(p, { throwIfNoEntry: false })) continue;
      this.placeholdersMade.add(p);
      const parent = path.dirname(p);
      if (!this.placeholderParents.has(parent)) {
        try {
          const st = lstatSync(parent);
          this.placeholderParents.set(parent, { names: readdirSync(parent).sort().join('\0'), atime: st.atimeMs / 1000, mtime: st.mtimeMs / 1000 });
        } catch {
          // No folder: bubblewrap makes no placeholder there either.
        }
      }
    }
    this.liveSandboxed++;
    const spawnId = ++this.spawnCount;
    this.liveIds.add(spawnId);
    return {
      file,
      args,
      // The command's environment travels in bwrap's arguments; what runs before it gets none.
      env: {},
      level,
      mountKey: fsKey(fs),
      refusals: listener.refusals,
      ...(cgroups ? { members: () => cgroups.members() } : {}),
      dispose: once(() => {
        if (token !== undefined) shared?.listeners.delete(token);
        this.releaseCgroups(cgroups);
        this.liveIds.delete(spawnId);
        if (--this.liveSandboxed === 0) this.removePlaceholders();
      }),
    };
  }

  /**
   * A one-shot auto-approved read: the sandbox as for any command, without its network (a namespace
   * of its own with nothing in it, no proxy), and the launcher's `readonly` stage fencing the shell
   * first thing inside. Refused (nothing runs) where the fence cannot hold.
   */
  private wrapFenced(argv: readonly string[], opts: WrapOptions, level: SandboxLevel, programs: readonly string[]): WrappedSpawn {
    const support = fenceSupport(level);
    if (!support.enforced || !support.launch) throw new SandboxUnavailableError(`The read-only fence cannot hold this auto-approved read here (${support.why ?? 'unknown reason'}). Nothing was run.`);
    const pathVar = (opts.env as Partial<Record<string, string>>).PATH ?? process.env.PATH ?? '';
    const tmpfs = this.limits().tmpMiB > 0 && bwrapHasSize(this.support().bwrap as string);
    // With a TMPDIR tmpfs each run's is new: the scratch folder dies with it. Else it is removed at dispose.
    const scratch = path.join(this.tmpDir(), tmpfs ? 'ro' : `ro-${process.pid}-${++fenceCount}-${Date.now().toString(36)}`);
    const specs = fenceSpecs({ scratch, workspaceRoots: this.options.workspaceRoots(), programs, shell: absoluteShell(argv[0], pathVar), pathVar });
    const env: Record<string, string> = { ...opts.env };
    for (const name of FENCE_UNSET) delete env[name];
    const inner = this.wrap([support.launch.path, 'readonly', ...specs, '--', ...argv], { ...opts, env, readOnly: undefined, fencedScratch: scratch });
    return {
      ...inner,
      dispose: once(() => {
        inner.dispose();
        if (!tmpfs) rmSync(scratch, { recursive: true, force: true });
      }),
    };
  }

  /**
   * The confinement a process started now would get, as a key: a persistent shell keeps the mounts
   * it started with, so when a repository, a protected file or a secret appeared on the host since
   * (or a workspace folder came or went), its key differs and the executor starts a fresh shell
   * (localExecutor.ts): an old shell would write the new `.git/config` or read the new secret.
   * Undefined where the call would not be sandboxed.
   */
  mountKey(sandbox?: 'off'): string | undefined {
    if (this.levelFor(sandbox) !== 'sandboxed') return undefined;
    return fsKey(resolveFsPolicy(this.options.settings(), { ...this.policyContext(), protectedPlan: this.protectedPlan(false) }));
  }

  /**
   * What a command needs from beneath the home folder besides the listed paths (privateHome.ts):
   * the compiled launcher's folder (its inner stage and the fence's builtin run inside), and the
   * git dir and common dir of a workspace folder whose `.git` is a pointer (a linked worktree, a
   * submodule), as git itself says (newRepoQuarantine.ts gitLocations), kept while the pointer is unchanged.
   */
  private homeExtra(): string[] {
    const out: string[] = [];
    const native = nativeLaunch();
    if (native) out.push(path.dirname(native.path));
    for (const root of this.options.workspaceRoots()) {
      const dotGit = path.join(root, '.git');
      const st = lstatSync(dotGit, { throwIfNoEntry: false });
      if (!st?.isFile()) continue;
      const key = `${dotGit}\0${st.ino}\0${st.mtimeMs}\0${st.size}`;
      let where = this.gitDirsOutside.get(key);
      if (where === undefined) {
        const loc = gitLocations(dotGit);
        where = loc ? [loc.gitDir, loc.commonDir] : [];
        if (this.gitDirsOutside.size > 100) this.gitDirsOutside.clear();
        this.gitDirsOutside.set(key, where);
      }
      out.push(...where);
    }
    return out;
  }

  /**
   * The workspace folders by their real paths: what the sandbox binds and plans is named so
   * (sandboxPolicy.ts resolveWritable); a folder opened through a symlink is the folder it leads to.
   */
  private roots(): string[] {
    return realWorkspaceRoots(this.options.settings(), this.policyContext());
  }

  private policyContext(): PolicyContext {
    const home = this.options.home ?? os.homedir();
    return { home, workspaceRoots: this.options.workspaceRoots(), tmpDir: this.tmpDir(), cacheStore: this.options.cacheStore ?? defaultCacheStore(home) };
  }

  private limits(): SandboxLimits {
    return this.options.settings().limits ?? DEFAULT_SANDBOX_LIMITS;
  }

  /**
   * The protected mounts: planned anew when `fresh` or when the last plan is old or for other
   * settings. `fresh` (the look after a command) searches every folder, however many: a repository
   * the command made past the search budget is found and quarantined all the same (the plan is
   * read-only past the budget all the same).
   */
  private protectedPlan(fresh: boolean): ProtectedPlan {
    const settings = this.options.settings();
    const key = JSON.stringify([this.options.workspaceRoots(), settings.allowWrite, settings.gitAllowWrite === true, this.options.home]);
    const cached = this.planCache;
    if (!fresh && cached && cached.key === key && Date.now() - cached.at < PLAN_FRESH_MS) return cached.plan;
    const plan = planFor(settings, this.policyContext(), fresh);
    this.planCache = { plan, key, at: Date.now() };
    return plan;
  }

  /**
   * Before a sandboxed run (the pipeline calls it): the protected set's state and the limit
   * counters; `finish` says what was skipped, what changed anyway and which limit was hit.
   */
  watch(): SandboxWatch {
    // The last command's closing look is as good as a new one for a while (PLAN_FRESH_MS).
    const plan = this.protectedPlan(false);
    const roots = this.roots();
    const before = snapshotProtected(plan, roots);
    const counts = this.limitCounts();
    const tmpDir = this.tmpDir();
    const masked = planMasks(this.options.maskedPrograms?.() ?? [], process.env.PATH ?? '', path.join(this.baseDir(), 'masks')).skipped;
    return {
      finish: (output) => {
        const after = this.protectedPlan(true);
        const afterSnap = snapshotProtected(after, roots);
        const changes = compareSnapshots(before, afterSnap);
        // New repositories and protected files no mount covered: made harmless before the host's git finds them.
        // Also every repository that appeared since the last look, whenever it did: a persistent
        // shell's background job may make one after its call ended (before this call's first look).
        const known = this.knownGits ?? new Set(plan.gitPaths);
        const newGits = after.gitPaths.filter((g) => !known.has(g));
        // A repository a sandboxed command made is checked again whenever what makes git run
        // something in it changed (a shell started before it existed can still write it).
        // Since its check: also what changed between the last command's end and this one's start.
        const last = this.lastSnapshot;
        const touchedMade = [...this.madeRepos.keys()].filter((g) => after.gitPaths.includes(g) && (changes.some((line) => line.startsWith(`${g}/`)) || (last !== undefined && changedUnder(last, afterSnap, g))));
        // A path a git config named before the command that it changed (a symlink or folder swapped
        // for a file) counts as made. (What a config made by this command names is that config's
        // own: the config is checked.)
        const watched = plan.watched;
        const changedWatched = changes.map((line) => line.replace(/ was (changed|removed)$/, '')).filter((p) => watched.includes(p));
        const created = [...new Set([
          ...changes.filter((line) => line.endsWith(CREATED)).map((line) => line.slice(0, -CREATED.length)),
          ...changedWatched,
          ...newGits,
          ...touchedMade,
        ])];
        let quarantined: string[] = [];
        // The folders a command may write in general (also when this plan would make them read-only).
        // The sandbox's own package stores too: a gitdir may point into one (bound at the host's store paths).
        const writableNow = (): string[] => {
          const fsNow = resolveFsPolicy(this.options.settings(), { ...this.policyContext(), protectedPlan: { ...after, readOnlyBecause: [] } });
          return [...fsNow.writable, ...(fsNow.cacheBinds ?? []).map((b) => b.source)];
        };
        if (created.length > 0) {
          const writable = writableNow();
          quarantined = quarantineCreated(created, after.gitPaths, roots, writable, confinedMover(this.support().bwrap as string, writable), watched);
        }
        this.knownGits = new Set(after.gitPaths);
        // Checked now: a repository no older sandboxed process can write is left to the person.
        for (const [g, writers] of this.madeRepos) if (![...writers].some((id) => this.liveIds.has(id))) this.madeRepos.delete(g);
        if (this.liveIds.size > 0) for (const g of newGits) this.madeRepos.set(g, new Set(this.liveIds));
        // A new repository git found harmless is the person's, without a word; what the check
        // moved aside is named (quarantined), and so is every other change.
        // A `.git` that is a pointer (a file, a symlink, a `commondir`) may lead to a repository the
        // command could not write, whose own config then acts on this folder: still named.
        const checked = new Set([...newGits, ...touchedMade].filter(selfContainedGitDir));
        // A folder git takes as a git dir by itself (not a `.git`) explains only its own sensitive paths.
        const explains = (g: string, p: string): boolean => (path.basename(g) === '.git' ? p.startsWith(`${g}/`) : gitSensitivePaths(g).some((s) => p === s || p.startsWith(`${s}/`)));
        const unexplained = changes.filter((line) => {
          const p = line.replace(/ was (created|changed|removed)$/, '');
          return !(checked.has(p) || [...checked].some((g) => explains(g, p)));
        });
        // A protected file (or symlink) the command changed is moved aside, not only named: the host's
        // git or editor would read what it wrote. (A folder's own change is its files' changes.)
        const changedFiles = unexplained
          .filter((line) => line.endsWith(CHANGED))
          .map((line) => line.slice(0, -CHANGED.length))
          .filter((p) => {
            const st = lstatSync(p, { throwIfNoEntry: false });
            return st !== undefined && !st.isDirectory();
          });
        let movedChanged = new Map<string, string>();
        if (changedFiles.length > 0) {
          const writable = writableNow();
          movedChanged = quarantineChanged(changedFiles, writable, confinedMover(this.support().bwrap as string, writable));
        }
        const explained = unexplained.map((line) => (line.endsWith(CHANGED) ? (movedChanged.get(line.slice(0, -CHANGED.length)) ?? line) : line));
        const protectedChanged = [...moveAsideCreated(explained, plan.gitPaths), ...quarantined];
        // As the check left it (a path it moved aside reads as changed next time, and is checked again: harmless).
        this.lastSnapshot = created.length > 0 || movedChanged.size > 0 ? snapshotProtected(after, roots) : afterSnap;
        const now = this.limitCounts();
        const limits = new Set(limitHitsInOutput(output, tmpDir));
        if (now.processes > counts.processes) limits.add('processes');
        if (now.memory > counts.memory) limits.add('memory');
        const missingLandlock = this.landlockProblem !== undefined ? [landlockNotice(this.landlockProblem)] : [];
        const readOnly = plan.readOnlyBecause.map((why) => `the workspace folders were read-only: ${why}`);
        const skipped = [...readOnly, ...plan.skipped, ...masked, ...missingLandlock];
        const notices = [
          readOnlyNotice(plan.readOnlyBecause),
          // A machine without Landlock lacks it for every command: the details say so each time,
          // the text does not repeat it on every result (docs/SANDBOX.md says it).
          skippedNotice([...plan.skipped, ...masked]),
          protectedChangeNotice(protectedChanged),
          limitNotice([...limits], this.limits()),
        ].filter((n): n is string => n !== undefined);
        return { skipped, protectedChanged, limits: [...limits], notices };
      },
    };
  }

  /** The cgroups of a command, where this process may make them (limits.ts). */
  private cgroupsFor(limits: SandboxLimits): CommandCgroups | undefined {
    this.retryCgroupRemoval();
    if (limits.processes <= 0 && limits.memoryMiB <= 0) return undefined;
    const cg = new CommandCgroups(`agent-bash-${process.pid}-${++cgroupCount}`, limits);
    if (cg.procsFiles.length === 0) return undefined;
    this.liveCgroups.add(cg);
    return cg;
  }

  private releaseCgroups(cg: CommandCgroups | undefined): void {
    if (!cg) return;
    this.liveCgroups.delete(cg);
    const c = cg.counts();
    this.closedCounts.processes += c.processes;
    this.closedCounts.memory += c.memory;
    if (!cg.remove()) this.busyCgroups.add(cg);
  }

  private retryCgroupRemoval(): void {
    for (const cg of this.busyCgroups) if (cg.remove()) this.busyCgroups.delete(cg);
  }

  /** Limit hits so far, of every command's cgroups (closed ones counted when they closed). */
  private limitCounts(): LimitCounts {
    const out = { ...this.closedCounts };
    for (const cg of this.liveCgroups) {
      const c = cg.counts();
      out.processes += c.processes;
      out.memory += c.memory;
    }
    return out;
  }

  /**
   * The shared namespace and its proxy, made on first use where nsenter exists and sharing is on.
   * A refusal goes to the command whose token asked; one without a token (a client that drops the
   * proxy URL's user name) goes to every live command, so none is left unexplained.
   */
  private sharedNetwork(): { network: SharedNetwork; listeners: Map<string, SharedListener> } | undefined {
    if (this.shared) return this.shared;
    const support = this.support();
    if (!support.nsenter || !support.bwrap || !support.socat) return undefined;
    const listeners = new Map<string, SharedListener>();
    const socketPath = path.join(this.baseDir(), 'net', `proxy-${process.pid}-shared.sock`);
    const proxy = new NetworkProxy(socketPath, () => this.options.settings().allowedDomains, (refusal, token) => {
      const own = token === undefined ? undefined : listeners.get(token);
      for (const listener of own ? [own] : listeners.values()) {
        // Bounded like the proxy's own list: a session's shell may be refused a million times.
        if (listener.refusals.length < MAX_REFUSALS_PER_COMMAND) listener.refusals.push(refusal);
        listener.onRefused?.(refusal);
      }
    });
    const network = new SharedNetwork({ bwrap: support.bwrap, socat: support.socat, nsenter: support.nsenter }, socketPath, this.networkStateFile());
    this.shared = { network, proxy, listeners };
    return this.shared;
  }

  /** Where launchers that start before the shared namespace serves wait for it. */
  private networkStateFile(): string {
    return path.join(this.baseDir(), 'net', 'shared-network');
  }

  /** Starts the shared network namespace now and resolves when it serves (false: commands use their own). */
  async warmNetwork(): Promise<boolean> {
    if (!this.support().sandbox || this.options.settings().enabled === 'off') return false;
    return (await this.sharedNetwork()?.network.ready()) ?? false;
  }

  /** The seccomp filter, written once per runtime. */
  private filterPath(): string {
    const file = path.join(this.baseDir(), 'net', 'seccomp.bpf');
    if (!this.filterWritten) {
      writeSeccompFilter(file);
      this.filterWritten = true;
    }
    return file;
  }

  private baseDir(): string {
    if (!this.dir) {
      // By its real path (a symlinked /tmp): bubblewrap mounts onto it (pathWithin.ts realPath).
      this.dir = realPath(makeOwnedTempDir('sandbox'));
      mkdirSync(path.join(this.dir, 'tmp'));
      mkdirSync(path.join(this.dir, 'net'), { mode: 0o700 });
    }
    return this.dir;
  }

  /** The placeholder folders bubblewrap left, deepest first, where still empty folders (rmdir fails otherwise). */
  private removePlaceholders(): void {
    const byDepth = [...this.placeholdersMade].sort((a, b) => b.split('/').length - a.split('/').length);
    this.placeholdersMade.clear();
    for (const p of byDepth) {
      try {
        rmdirSync(p);
      } catch {
        // Not empty, not a folder, or gone: it is someone's now.
      }
    }
    // A folder whose entries are as before gets its times back (making and removing the mount points changed them).
    for (const [parent, was] of this.placeholderParents) {
      try {
        if (readdirSync(parent).sort().join('\0') === was.names) utimesSync(parent, was.atime, was.mtime);
      } catch {
        // Gone: nothing to restore.
      }
    }
    this.placeholderParents.clear();
  }

  /** Closes every proxy and removes the session's TMPDIR. */
  dispose(): void {
    if (this.liveSandboxed === 0) this.removePlaceholders();
    if (this.shared) {
      this.shared.network.dispose();
      this.shared.proxy.close();
      this.shared = undefined;
    }
    this.retryCgroupRemoval();
    this.untrustedRegistration?.();
    this.untrustedRegistration = undefined;
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.filterWritten = false;
  }
}

/**
 * A policy's mounts as a key. A protected path counts the same whether it is an empty read-only
 * placeholder (absent) or bound read-only (present): bwrap leaves the placeholder's folder behind,
 * and that alone must not look like a change.
 */
function fsKey(fs: FsPolicy): string {
  const sorted = (list: readonly string[] | undefined): string[] => [...new Set(list ?? [])].sort();
  const key = [sorted(fs.writable), sorted(fs.denyRead), sorted([...fs.denyWrite, ...(fs.denyCreate ?? [])]), sorted(fs.selfBinds), (fs.cacheBinds ?? []).map((b) => `${b.source}\0${b.dest}`).sort(), (fs.readOnlyBinds ?? []).map((b) => `${b.source}\0${b.dest}`).sort()];
  return createHash('sha256').update(JSON.stringify(key)).digest('hex');
}

/** A folder (not a symlink) without a `commondir`: a repository whose metadata is all inside it. */
function selfContainedGitDir(git: string): boolean {
  return lstatSync(git, { throwIfNoEntry: false })?.isDirectory() === true && lstatSync(path.join(git, 'commondir'), { throwIfNoEntry: false }) === undefined;
}

/** Whether a path beneath `git` (its config, hooks…) differs between two snapshots. */
function changedUnder(a: Snapshot, b: Snapshot, git: string): boolean {
  const prefix = `${git}/`;
  for (const [key, state] of b) if (key.startsWith(prefix) && a.get(key) !== state) return true;
  for (const key of a.keys()) if (key.startsWith(prefix) && !b.has(key)) return true;
  return false;
}

/** Names each fenced call's scratch folder, unique in this process. */
let fenceCount = 0;

/** The shell as an absolute path (the fence allows running it by that file). */
function absoluteShell(shell: string, pathVar: string): string {
  return path.isAbsolute(shell) ? shell : (findOnPath(shell, pathVar) ?? findOnPath(shell, '/usr/bin:/bin') ?? shell);
}

/** `argv` started by the constant shell that first enters the command's cgroups (limits.ts). */
function withCgroups(cg: CommandCgroups | undefined, argv: string[]): string[] {
  if (!cg) return argv;
  return ['/bin/sh', '-c', CGROUP_ENTER_SCRIPT, 'sh', ...cg.procsFiles, '--', ...argv];
}

/** `fn`, run on the first call only (a dispose may be called from exit and from error). */
function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

/**
 * The PATH whose folders beneath the home the private home binds (privateHome.ts). Without a PATH of
 * the call's own, the shell's (the login snapshot's, or this process's): the person's. A PATH the
 * call set itself (its `env`, direnv's values, an ACP client's; merged into the shell's by then)
 * widens nothing: its folders are kept only where this process's PATH has them too, so
 * `PATH=~/other-project:~/.ssh` binds no sibling project and no key folder. A program only such a
 * PATH would add from the home is not found (the listed toolchain folders are bound anyway).
 */
export function homePathValue(shellPath: string, givenPath: string | undefined, hostPath: string): string {
  if (givenPath === undefined) return shellPath;
  const trusted = new Set(hostPath.split(':').filter((p) => path.isAbsolute(p)).map((p) => path.resolve(p)));
  return givenPath
    .split(':')
    .filter((p) => path.isAbsolute(p) && trusted.has(path.resolve(p)))
    .join(':');
}

/** `runtime.wrap(argv, opts)`, or the argv as it is when there is no runtime. */
export function wrapSpawn(runtime: SandboxRuntime | undefined, argv: readonly string[], opts: WrapOptions): WrappedSpawn {
  if (runtime) return runtime.wrap(argv, opts);
  return { file: argv[0], args: argv.slice(1), env: opts.env, level: 'plain', refusals: [], dispose: () => undefined };
}
