// The login environment, resolved once: the user's login profile runs one time (per window in the
// editor, per process in the CLI and the stdio MCP server), and every later shell starts without `-l`, with what the profile exported (PATH and
// variables; functions and aliases are what each call's reset drops anyway). A profile file that
// changes is noticed at the next shell start and resolved again in the background; until then the
// old snapshot serves. A profile that hangs or fails is bounded: its process group is killed after
// `timeoutMs`, the next result carries a notice, and shells start from the inherited environment
// (still without `-l`: the profile is not run again for each shell).
// Never kept on disk: a sandboxed command runs as the same user and may read or write wherever such a
// file could live (a folder in allowWrite, /tmp), and what the profile exported (tokens) or what a
// forged file said (PATH, LD_PRELOAD) would then reach the host's next process.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { commandEnv } from '../core/nonInteractiveEnv';
import { killProcessTree, spawnInGroup } from './processTree';
import { shellKind, shellMarks, shellQuote, type ShellConfig } from './shellConfig';

/** How long a login profile may take before it is killed (its process group) and the inherited env used. */
export const LOGIN_TIMEOUT_MS = 10_000;
/**
 * A profile being stopped (it hung, its answer is in and it left something running, or the window or
 * CLI is closing) gets SIGTERM and this long before SIGKILL: bash runs its EXIT traps on SIGTERM, and
 * profiles take locks they release there (pyenv's rehash lock: left behind, it makes every later login
 * shell on the machine, the person's own terminals too, wait 60 s for it).
 */
export const LOGIN_STOP_GRACE_MS = 2000;
/** How often (at most) a shell start checks the profile files for a change. */
const CHECK_EVERY_MS = 1000;

/** The notices a result carries when the profile could not be resolved. Tests assert them. */
export const LOGIN_PROFILE_TIMEOUT = (shell: string, ms: number): string =>
  `Your login profile (${shell} -l) did not finish within ${Math.round(ms / 1000)} s; it was stopped and commands run with the editor's or terminal's environment (without the profile's PATH and variables) until a profile file changes`;
export const LOGIN_PROFILE_FAILED = (shell: string, why: string): string =>
  `Your login profile (${shell} -l) failed (${why}); commands run with the editor's or terminal's environment (without the profile's PATH and variables) until a profile file changes`;

/** Set by the shell, not the profile, or ours for the resolve itself: never part of a snapshot. */
const VOLATILE = new Set(['PWD', 'OLDPWD', 'SHLVL', '_', 'ELECTRON_RUN_AS_NODE']);

/** What the profile changed: variables it set (new or other values) and ones it removed. */
export interface LoginDelta {
  set: Record<string, string>;
  unset: string[];
}

export interface LoginSnapshot {
  delta: LoginDelta;
  /** Why the profile's changes are missing (it hung or failed): the notice a result carries. */
  notice?: string;
}

export interface LoginEnvironmentOptions {
  /** The environment the profile starts from (the extension host's or the CLI's own). */
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Profile files to watch (default: the shell's usual ones under HOME and /etc). */
  files?: readonly string[];
  /** Minimum gap between two change checks (default 1 s; tests: 0). */
  checkEveryMs?: number;
  /** The program that prints the environment (default: this Node / Electron binary). */
  nodePath?: string;
  /** Told each notice once (the editor's log, the CLI's stderr). */
  onNotice?: (text: string) => void;
}

interface Entry {
  shell: string;
  args: string[];
  fileKey: string;
  snapshot?: LoginSnapshot;
  resolving?: Promise<LoginSnapshot>;
  checkedAt: number;
  /** A fallback's notice not yet shown in a result. */
  pendingNotice?: string;
}

/** The shell config a shell is started with: the snapshot applied, `-l` dropped, and a notice to show once. */
export interface LoginStart {
  config: ShellConfig;
  notice?: string;
}

export class LoginEnvironment {
  private readonly entries = new Map<string, Entry>();
  private readonly running = new Set<ChildProcess>();
  private disposed = false;
  /** How many times a profile was run by this resolver (tests, bench). */
  runs = 0;

  constructor(private readonly options: LoginEnvironmentOptions) {}

  /** True when `args` ask for a login shell this resolver can stand in for. */
  static isLogin(config: Pick<ShellConfig, 'shell' | 'args'>, platform: NodeJS.Platform = process.platform): boolean {
    // Git Bash and friends on Windows keep their login shell per command (untried there).
    if (platform === 'win32') return false;
    const kind = shellKind(config.shell);
    if (kind !== 'bash' && kind !== 'zsh' && kind !== 'sh') return false;
    return config.args.some((a) => a === '-l' || a === '--login');
  }

  /**
   * `config` as a shell should be started: for a login config, its env with the snapshot applied and
   * its args without `-l` (waiting for the one resolve when it is under way); any other config as is.
   */
  async start(config: ShellConfig, opts: { keepNotice?: boolean } = {}): Promise<LoginStart> {
    if (!LoginEnvironment.isLogin(config) || this.disposed) return { config };
    const entry = this.entry(config);
    const snapshot = await this.current(entry);
    // The fallback's notice goes to one result (a warm-up start leaves it for the call).
    const notice = entry.pendingNotice;
    if (!opts.keepNotice) entry.pendingNotice = undefined;
    return { config: applySnapshot(config, snapshot.delta), ...(notice && !opts.keepNotice ? { notice } : {}) };
  }

  /** The snapshot now, without waiting (undefined while the first resolve runs). */
  peek(config: ShellConfig): LoginStart | undefined {
    if (!LoginEnvironment.isLogin(config) || this.disposed) return { config };
    const entry = this.entries.get(entryKey(config));
    if (!entry?.snapshot) return undefined;
    return { config: applySnapshot(config, entry.snapshot.delta) };
  }

  /** Settles when no resolve is under way (tests: a background refresh finished). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.entries.values()].flatMap((e) => (e.resolving ? [e.resolving] : [])));
  }

  /** Kills a profile still running. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.allSettled([...this.running].map((child) => killProcessTree(child, { graceMs: LOGIN_STOP_GRACE_MS })));
  }

  private entry(config: ShellConfig): Entry {
    const key = entryKey(config);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { shell: config.shell, args: [...config.args], fileKey: '', checkedAt: 0 };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private async current(entry: Entry): Promise<LoginSnapshot> {
    const now = Date.now();
    if (entry.snapshot && now - entry.checkedAt < (this.options.checkEveryMs ?? CHECK_EVERY_MS)) return entry.snapshot;
    entry.checkedAt = now;
    const fileKey = this.fileKey(entry.shell);
    if (entry.snapshot && fileKey === entry.fileKey) return entry.snapshot;
    // A profile file changed: resolve again in the background; this start keeps the old snapshot.
    if (entry.snapshot) {
      if (!entry.resolving) void this.resolve(entry, fileKey);
      return entry.snapshot;
    }
    return entry.resolving ?? this.resolve(entry, fileKey);
  }

  private resolve(entry: Entry, fileKey: string): Promise<LoginSnapshot> {
    const work = (async (): Promise<LoginSnapshot> => {
      const runEnv = commandEnv({ ...stringEnv(this.options.env), ...shellMarks(this.options.env, entry.shell) });
      const snapshot = await this.runProfile(entry, runEnv);
      entry.snapshot = snapshot;
      entry.fileKey = fileKey;
      if (snapshot.notice) {
        entry.pendingNotice = snapshot.notice;
        this.options.onNotice?.(snapshot.notice);
      }
      return snapshot;
    })().finally(() => {
      if (entry.resolving === work) entry.resolving = undefined;
    });
    entry.resolving = work;
    return work;
  }

  private runProfile(entry: Entry, runEnv: Record<string, string>): Promise<LoginSnapshot> {
    this.runs += 1;
    const token = randomBytes(12).toString('hex');
    const node = this.options.nodePath ?? process.execPath;
    const print = `process.stdout.write(${JSON.stringify(token)}+JSON.stringify(process.env)+${JSON.stringify(token)})`;
    // The profile runs as the shell's login start; then this Node prints the environment it left
    // (by absolute path: the profile may define a function or alias named `node`).
    const script = `ELECTRON_RUN_AS_NODE=1 exec ${shellQuote(node)} -e ${shellQuote(print)}`;
    const timeoutMs = this.options.timeoutMs ?? LOGIN_TIMEOUT_MS;
    const fallback = (notice: string): LoginSnapshot => ({ delta: { set: {}, unset: [] }, notice });
    return new Promise<LoginSnapshot>((resolve) => {
      let child: ChildProcess;
      try {
        child = spawnInGroup(entry.shell, [...entry.args.filter((a) => a !== '-c'), '-c', script], {
          env: runEnv,
          // A missing home (a service account's HOME that was never made) is no reason to fail the
          // profile: bash starts there and the profile decides what it needs.
          cwd: [runEnv.HOME, os.homedir()].find((d) => Boolean(d) && existsDir(d)) ?? '/',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
      } catch (err) {
        resolve(fallback(LOGIN_PROFILE_FAILED(entry.shell, err instanceof Error ? err.message : String(err))));
        return;
      }
      this.running.add(child);
      let text = '';
      let err = '';
      let done = false;
      let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let grace: NodeJS.Timeout | undefined;
      // Once: the answer is in (or the profile failed, or hung). Whatever the profile left running
      // in its group (`daemon &`) goes with it, as it went with the login shell before.
      const finish = (snapshot: LoginSnapshot): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearTimeout(grace);
        void killProcessTree(child, { graceMs: LOGIN_STOP_GRACE_MS }).finally(() => this.running.delete(child));
        resolve(snapshot);
      };
      const failed = (): void => {
        const last = err.trim().split('\n').pop() ?? '';
        const why = exited?.signal ? `ended by ${exited.signal}` : `exit status ${exited?.code ?? '?'}`;
        finish(fallback(LOGIN_PROFILE_FAILED(entry.shell, last ? `${why}: ${last}` : why)));
      };
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (c: string) => {
        text += c;
        const from = text.indexOf(token);
        const to = from < 0 ? -1 : text.indexOf(token, from + token.length);
        if (to < 0) return;
        try {
          const env = JSON.parse(text.slice(from + token.length, to)) as Record<string, string>;
          finish({ delta: deltaOf(runEnv, env) });
        } catch (e) {
          finish(fallback(LOGIN_PROFILE_FAILED(entry.shell, e instanceof Error ? e.message : String(e))));
        }
      });
      child.stderr?.on('data', (c: Buffer) => {
        err = (err + c.toString('utf8')).slice(-2000);
      });
      const timer = setTimeout(() => finish(fallback(LOGIN_PROFILE_TIMEOUT(entry.shell, timeoutMs))), timeoutMs);
      child.once('error', (e) => finish(fallback(LOGIN_PROFILE_FAILED(entry.shell, e.message))));
      child.once('exit', (code, signal) => {
        exited = { code, signal };
        // The answer may still be in the pipe; a background child of the profile may hold it open.
        grace = setTimeout(failed, 200);
      });
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        exited ??= { code, signal };
        failed();
      });
    });
  }

  /** Paths, sizes, mtimes and inodes of the profile files: what a change of the profile changes. */
  private fileKey(shell: string): string {
    const files = this.options.files ?? profileFiles(shell, this.options.env.HOME ?? os.homedir());
    return files
      .map((file) => {
        const st = statSync(file, { throwIfNoEntry: false });
        return st ? `${file}\0${st.size}\0${st.mtimeMs}\0${st.ino}` : `${file}\0-`;
      })
      .join('\n');
  }

}

/** The usual login (and rc) files of a shell, under `home` and /etc. */
export function profileFiles(shell: string, home: string): string[] {
  const kind = shellKind(shell);
  const inHome = kind === 'zsh' ? ['.zshenv', '.zprofile', '.zshrc', '.zlogin'] : ['.bash_profile', '.bash_login', '.profile', '.bashrc'];
  const system = kind === 'zsh' ? ['/etc/zshenv', '/etc/zprofile', '/etc/zshrc', '/etc/zsh/zshenv', '/etc/zsh/zprofile', '/etc/zsh/zshrc', '/etc/profile'] : ['/etc/profile', '/etc/bash.bashrc', '/etc/profile.d'];
  return [...inHome.map((f) => path.join(home, f)), ...system];
}


/** `config` with the profile's changes applied and `-l` dropped. */
export function applySnapshot(config: ShellConfig, delta: LoginDelta): ShellConfig {
  const env = { ...config.env };
  for (const name of delta.unset) delete env[name];
  Object.assign(env, delta.set);
  return { ...config, args: config.args.filter((a) => a !== '-l' && a !== '--login'), env };
}

function deltaOf(before: Record<string, string>, after: Record<string, string>): LoginDelta {
  const set: Record<string, string> = {};
  const unset: string[] = [];
  for (const [name, value] of Object.entries(after)) {
    if (VOLATILE.has(name) || typeof value !== 'string') continue;
    if (before[name] !== value) set[name] = value;
  }
  for (const name of Object.keys(before)) if (!VOLATILE.has(name) && !Object.hasOwn(after, name)) unset.push(name);
  return { set, unset };
}

function entryKey(config: Pick<ShellConfig, 'shell' | 'args'>): string {
  return `${config.shell}\0${config.args.join('\0')}`;
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

function existsDir(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
}



