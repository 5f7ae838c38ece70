// The one wrapper every spawn point calls: `(argv, {cwd, env, sandbox}) → {file, args, env}`. It
// decides, per call and from the current settings, between
//   - sandboxed: bubblewrap with the filesystem policy, no network but the filtering proxy, and a
//     PID namespace (see bwrapArgs.ts);
//   - contained: bubblewrap with the whole filesystem, only the PID namespace + die-with-parent
//     (sandbox off, `sandbox: "off"` calls, bang commands);
//   - plain: the argv as given, where bubblewrap cannot run (the group kill and the environment-mark
//     sweep are then all the containment there is).
// It owns the per-session TMPDIR and the network proxy, and removes both on dispose. Sandboxed
// commands share one network namespace and proxy (sharedNetwork.ts) and tell the proxy who they are
// by the user name of their proxy URL, so each hears only its own refusals; until that namespace
// listens (or where it cannot start) a command gets a namespace, bridge and proxy of its own.
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { confineArgs, containArgs, PROXY_PORT, PROXY_URL } from './bwrapArgs';
import { NetworkProxy, type Refusal } from './networkProxy';
import { SharedNetwork } from './sharedNetwork';
import { writeUnixSocketFilter } from './unixSocketFilter';
import { probeSandbox, type SandboxSupport } from './sandboxProbe';
import { planFor, resolveFsPolicy, type PolicyContext, type SandboxSettings } from './sandboxPolicy';
import type { ProtectedPlan } from './protectedMounts';
import { compareSnapshots, moveAsideCreated, protectedChangeNotice, skippedNotice, snapshotProtected } from './protectedCheck';
import { bwrapHasSize, CGROUP_ENTER_SCRIPT, CommandCgroups, DEFAULT_SANDBOX_LIMITS, limitHitsInOutput, limitNotice, nprocPrefix, type LimitCounts, type SandboxLimits } from './limits';
import { planMasks, type MaskedProgram } from './denyMasks';
import type { SandboxWatch } from '../../core/pipeline';

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
  /** Replaces the machine probe (tests: an unavailable machine). */
  probe?: () => SandboxSupport;
  /** Told once when `auto` falls back to running unsandboxed. */
  onFallback?: (message: string) => void;
  /**
   * Share one network namespace among sandboxed commands (default true). A one-shot host (the CLI's
   * `run`) says false: it would start the holder for a single command.
   */
  shareNetwork?: boolean;
  /** Programs the deny rules name whole (denyMasks.ts): masked inside the sandbox. */
  maskedPrograms?: () => readonly MaskedProgram[];
}

/** Names each command's cgroups, unique in this process (runtimes come and go; a busy one lingers). */
let cgroupCount = 0;

/** How long a protected plan is reused by the next wrap (the pipeline plans right before it). */
const PLAN_FRESH_MS = 2000;

export interface WrapOptions {
  env: Record<string, string>;
  /**
   * The child descriptor where the spawn puts `WrappedSpawn.passFds` (default 3: after stdio; a
   * persistent shell, whose fd 3 is its status pipe, says 4). `none`: the spawn cannot pass
   * descriptors (node-pty), so a constant `sh` opens them (`exec "$@" 3<file`).
   */
  fdSlot?: number | 'none';
  /** `off`: this call runs outside the sandbox (still contained). */
  sandbox?: 'off';
  /** Hears each refused network request of this process. */
  onRefused?: (refusal: Refusal) => void;
}

export interface WrappedSpawn {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Descriptors (ours) the spawn must put at `fdSlot`, `fdSlot + 1`…; closed by dispose. */
  passFds?: number[];
  level: SandboxLevel;
  /** Network requests refused so far. */
  refusals: readonly Refusal[];
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
  private readonly live = new Set<NetworkProxy>();
  private filterWritten = false;
  private shared: { network: SharedNetwork; proxy: NetworkProxy; listeners: Map<string, SharedListener> } | undefined;
  private planCache: { plan: ProtectedPlan; key: string; at: number } | undefined;
  private readonly liveCgroups = new Set<CommandCgroups>();
  private readonly busyCgroups = new Set<CommandCgroups>();
  private readonly closedCounts: LimitCounts = { processes: 0, memory: 0 };

  constructor(private readonly options: SandboxRuntimeOptions) {}

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

  wrap(argv: readonly string[], opts: WrapOptions): WrappedSpawn {
    const level = this.levelFor(opts.sandbox);
    const support = this.support();
    const plain = { refusals: [] as Refusal[], dispose: () => undefined };
    if (level === 'plain') return { file: argv[0], args: argv.slice(1), env: opts.env, level, ...plain };
    const bwrap = support.bwrap as string;
    if (level === 'contained') return { file: bwrap, args: containArgs(argv), env: opts.env, level, ...plain };

    const settings = this.options.settings();
    const tmpDir = this.tmpDir();
    const ctx = this.policyContext();
    const fs = resolveFsPolicy(settings, { ...ctx, protectedPlan: this.protectedPlan(false) });
    const limits = this.limits();
    const tmpfs = limits.tmpMiB > 0 && bwrapHasSize(support.bwrap as string) ? { path: tmpDir, bytes: limits.tmpMiB * 1024 * 1024 } : undefined;
    const masks = planMasks(this.options.maskedPrograms?.() ?? [], (opts.env.PATH as string | undefined) ?? process.env.PATH ?? '', path.join(this.baseDir(), 'masks')).masks;
    const cgroups = this.cgroupsFor(limits);
    // Without a pids cgroup, the process limit is RLIMIT_NPROC inside (limits.ts).
    const nproc = cgroups?.has('pids') ? [] : nprocPrefix(limits.processes);
    const extra = { ...(tmpfs ? { tmpfs } : {}), ...(masks.length ? { masks } : {}), ...(nproc.length ? { innerPrefix: nproc } : {}) };
    const env: Record<string, string> = { ...opts.env, TMPDIR: tmpDir, TMP: tmpDir, TEMP: tmpDir, [SANDBOX_ENV]: '1' };
    for (const name of NO_PROXY_ENV) delete env[name];

    const enter = this.sharedNetwork()?.enterArgv();
    if (enter && this.shared) {
      const listeners = this.shared.listeners;
      const token = `agent-bash-${process.pid}-${++this.proxies}`;
      const listener: SharedListener = { refusals: [], onRefused: opts.onRefused };
      listeners.set(token, listener);
      for (const name of PROXY_ENV) env[name] = `http://${token}@127.0.0.1:${PROXY_PORT}`;
      // No unix sockets inside (unixSocketFilter.ts): the filter reaches bwrap as a descriptor.
      const slot = opts.fdSlot ?? 3;
      const seccompFd = slot === 'none' ? 3 : slot;
      const confined = withCgroups(cgroups, [enter[0], ...enter.slice(1), bwrap, ...confineArgs({ fs, enteredNetwork: true, seccompFd, ...extra }, argv)]);
      const filter = this.filterPath();
      const passFds = slot === 'none' ? [] : [openSync(filter, 'r')];
      return {
        ...(slot === 'none'
          ? { file: '/bin/sh', args: ['-c', 'exec "$@" 3<"$0"', filter, ...confined] }
          : { file: confined[0], args: confined.slice(1), passFds }),
        env,
        level,
        refusals: listener.refusals,
        dispose: once(() => {
          listeners.delete(token);
          for (const fd of passFds) closeSync(fd);
          this.releaseCgroups(cgroups);
        }),
      };
    }

    const socketPath = path.join(this.baseDir(), 'net', `proxy-${process.pid}-${++this.proxies}.sock`);
    const proxy = new NetworkProxy(socketPath, () => this.options.settings().allowedDomains, opts.onRefused);
    this.live.add(proxy);
    for (const name of PROXY_ENV) env[name] = PROXY_URL;
    const [file, ...args] = withCgroups(cgroups, [bwrap, ...confineArgs({ fs, network: { socat: support.socat as string, socketPath }, ...extra }, argv)]);
    return {
      file,
      args,
      env,
      level,
      refusals: proxy.refusals,
      dispose: once(() => {
        proxy.close();
        this.live.delete(proxy);
        rmSync(socketPath, { force: true });
        this.releaseCgroups(cgroups);
      }),
    };
  }

  private policyContext(): PolicyContext {
    return { home: this.options.home ?? os.homedir(), workspaceRoots: this.options.workspaceRoots(), tmpDir: this.tmpDir() };
  }

  private limits(): SandboxLimits {
    return this.options.settings().limits ?? DEFAULT_SANDBOX_LIMITS;
  }

  /** The protected mounts: planned anew when `fresh` or when the last plan is old or for other settings. */
  private protectedPlan(fresh: boolean): ProtectedPlan {
    const settings = this.options.settings();
    const key = JSON.stringify([this.options.workspaceRoots(), settings.allowWrite, settings.gitAllowWrite === true, this.options.home]);
    const cached = this.planCache;
    if (!fresh && cached && cached.key === key && Date.now() - cached.at < PLAN_FRESH_MS) return cached.plan;
    const plan = planFor(settings, this.policyContext());
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
    const roots = this.options.workspaceRoots();
    const before = snapshotProtected(plan, roots);
    const counts = this.limitCounts();
    const tmpDir = this.tmpDir();
    const masked = planMasks(this.options.maskedPrograms?.() ?? [], process.env.PATH ?? '', path.join(this.baseDir(), 'masks')).skipped;
    return {
      finish: (output) => {
        const after = this.protectedPlan(true);
        const protectedChanged = moveAsideCreated(compareSnapshots(before, snapshotProtected(after, roots)), plan.gitPaths);
        const now = this.limitCounts();
        const limits = new Set(limitHitsInOutput(output, tmpDir));
        if (now.processes > counts.processes) limits.add('processes');
        if (now.memory > counts.memory) limits.add('memory');
        const skipped = [...plan.skipped, ...masked];
        const notices = [
          skippedNotice(skipped),
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
  private sharedNetwork(): SharedNetwork | undefined {
    if (this.options.shareNetwork === false) return undefined;
    if (this.shared) return this.shared.network;
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
    const network = new SharedNetwork({ bwrap: support.bwrap, socat: support.socat, nsenter: support.nsenter }, socketPath);
    this.shared = { network, proxy, listeners };
    return network;
  }

  /** Starts the shared network namespace now and resolves when it serves (false: commands use their own). */
  async warmNetwork(): Promise<boolean> {
    if (!this.support().sandbox || this.options.settings().enabled === 'off') return false;
    return (await this.sharedNetwork()?.ready()) ?? false;
  }

  /** The unix-socket seccomp filter, written once per runtime. */
  private filterPath(): string {
    const file = path.join(this.baseDir(), 'net', 'no-unix-sockets.bpf');
    if (!this.filterWritten) {
      writeUnixSocketFilter(file);
      this.filterWritten = true;
    }
    return file;
  }

  private baseDir(): string {
    if (!this.dir) {
      this.dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-sandbox-'));
      mkdirSync(path.join(this.dir, 'tmp'));
      mkdirSync(path.join(this.dir, 'net'), { mode: 0o700 });
    }
    return this.dir;
  }

  /** Closes every proxy and removes the session's TMPDIR. */
  dispose(): void {
    if (this.shared) {
      this.shared.network.dispose();
      this.shared.proxy.close();
      this.shared = undefined;
    }
    for (const proxy of this.live) proxy.close();
    this.live.clear();
    this.retryCgroupRemoval();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.filterWritten = false;
  }
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

/** `runtime.wrap(argv, opts)`, or the argv as it is when there is no runtime. */
export function wrapSpawn(runtime: SandboxRuntime | undefined, argv: readonly string[], opts: WrapOptions): WrappedSpawn {
  if (runtime) return runtime.wrap(argv, opts);
  return { file: argv[0], args: argv.slice(1), env: opts.env, level: 'plain', refusals: [], dispose: () => undefined };
}
