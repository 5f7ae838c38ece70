// The local, non-PTY backend: persistent shell sessions (keyed by `sessionKeyOf`), one-shot shells for
// everything else, and the bookkeeping that lets `dispose()` kill every process it ever started.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { ExecRequest, ExecResult, LocalExecutor } from '../core/contracts';
import { withUnsets } from '../core/envPreflight';
import { commandEnv } from '../core/nonInteractiveEnv';
import { runOneShot } from './oneShotRun';
import { PersistentShell, sessionReplacedNotice } from './persistentShell';
import { groupAlive, killGroupAndWait, killProcessTree } from './processTree';
import { cancelledBeforeStart } from './runControl';
import { SandboxUnavailableError, type SandboxRuntime } from './sandbox/sandboxRuntime';
import { getShellConfig, withPrefix, type ShellConfig } from './shellConfig';
import type { LoginEnvironment } from './loginEnvironment';

export interface LocalShellExecutorOptions {
  /** `agentBash.shell.path`. */
  shellPath?: string;
  /** `agentBash.shell.args`. */
  shellArgs?: string[];
  /** The environment the shell config starts from (default: `process.env` at each call). */
  baseEnv?: NodeJS.ProcessEnv;
  /** SIGTERM → SIGKILL grace for kills (default 1000 ms). */
  killGraceMs?: number;
  /** false = never keep a shell between calls (every call is one-shot). Default true. */
  persistent?: boolean;
  /** Wraps every shell in the OS sandbox / PID namespace; absent: shells run as they are. */
  sandbox?: SandboxRuntime;
  /**
   * The login environment resolved once (loginEnvironment.ts): a login shell config starts its shells
   * without `-l`, from this snapshot. Absent: every login shell runs the profile itself.
   */
  loginEnv?: LoginEnvironment;
}

/** Async jobs get a fresh shell per job; their keys carry this marker. */
const ASYNC_KEY_MARK = ':async:';

export class LocalShellExecutor implements LocalExecutor {
  private readonly sessions = new Map<string, PersistentShell>();
  /** Keys whose shell was discarded and whose kill has not settled yet: calls there go one-shot. */
  private readonly quarantined = new Map<string, Promise<void>>();
  private readonly oneShots = new Set<ChildProcess>();
  /** Sessions whose shell ended after a completed call: the notice their next call carries. */
  private readonly endedAfterCall = new Map<string, string>();
  /** Groups of one-shot shells that exited with background children still running. */
  private readonly lingering = new Set<number>();
  private disposed = false;

  constructor(private readonly options: LocalShellExecutorOptions = {}) {}

  /** Live persistent sessions (for tests and diagnostics). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  async run(req: ExecRequest): Promise<ExecResult> {
    if (req.signal?.aborted) return cancelledBeforeStart(req.sink);
    if (this.disposed) throw new Error('LocalShellExecutor is disposed');
    this.pruneLingering();
    try {
      this.options.sandbox?.levelFor(req.sandbox);
    } catch (err) {
      if (!(err instanceof SandboxUnavailableError)) throw err;
      req.sink.push(`${err.message}\n`);
      return { exitCode: undefined, timedOut: false, cancelled: false, summary: await req.sink.dump() };
    }

    const config = getShellConfig({
      shellPath: this.options.shellPath,
      shellArgs: this.options.shellArgs,
      env: this.options.baseEnv,
    });
    // The environment stage's unsets go in front of the whole line, shell prefix included.
    const command = withUnsets(withPrefix(req.command, config.prefix), req.unset);
    const callerEnv = req.env ?? {};
    // The session's identity is the inherited environment; its shells start from the login snapshot.
    const sessionEnv = commandEnv(config.env);
    const login = this.options.loginEnv ? await this.options.loginEnv.start(config) : { config };
    const startConfig = login.config;
    if (login.notice !== undefined) req = withNotice(req, login.notice);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- dispose() may have run during the await.
    if (this.disposed) throw new Error('LocalShellExecutor is disposed');

    const persistent =
      this.options.persistent !== false &&
      req.sessionKey !== undefined &&
      !req.sessionKey.includes(ASYNC_KEY_MARK) &&
      PersistentShell.supports(config.shell) &&
      PersistentShell.canScope(callerEnv);
    if (!persistent) return this.oneShot(req, startConfig, command, commandEnv(startConfig.env, callerEnv));

    // A `sandbox: "off"` call never shares the sandboxed shell (nor the other way round).
    const key = sessionKeyOf(req.sessionKey as string, config, sessionEnv) + (req.sandbox === 'off' ? '\nsandbox-off' : '');
    let shell = this.sessions.get(key);
    // A session whose shell ended between calls (what the last call left made it exit) is replaced,
    // and the result says so: what it carried is gone.
    // A session whose shell ended after its last call (what that call left made it exit, or a check
    // after it killed it) is replaced, and the next result says so: what it carried is gone.
    let notice = this.endedAfterCall.get(key);
    this.endedAfterCall.delete(key);
    if (shell?.dead) {
      this.sessions.delete(key);
      notice ??= sessionReplacedNotice(shell.endedOnItsOwn ? 'exited' : 'refused');
      shell = undefined;
    }
    // Busy (an overlapping call) or quarantined: a fresh, uncached shell, so the owner's session is
    // neither queued behind nor touched by this call's fate.
    if (this.quarantined.has(key) || shell?.busy) {
      return this.oneShot(notice === undefined ? req : withNotice(req, notice), startConfig, command, commandEnv(startConfig.env, callerEnv));
    }
    const start = (): PersistentShell => this.startSession(key, startConfig, req.cwd, req.sandbox);
    // A sandboxed shell keeps the mounts it started with: when what a command started now would
    // get differs (a repository or a secret appeared on the host since), the shell is replaced.
    if (shell?.mountKey !== undefined && shell.mountKey !== this.options.sandbox?.mountKey(req.sandbox)) {
      this.discard(key, shell);
      shell = undefined;
      notice = SANDBOX_MOUNTS_CHANGED_NOTICE;
    }
    shell ??= start();
    // An auto-approved read runs in a fenced subshell of the session's shell; a shell that could not
    // load the fence's builtin leaves it to a one-shot run fenced by the launcher.
    if (req.readOnly && !(await shell.canFence())) return this.oneShot(req, startConfig, command, commandEnv(startConfig.env, callerEnv));

    // What this call exports on top of the session: the caller's variables, and the git settings
    // renumbered after any of theirs (commandEnv), so a caller's GIT_CONFIG_* cannot displace them.
    const callEnv = envDelta(commandEnv(startConfig.env), commandEnv(startConfig.env, callerEnv));
    let run = await shell.run(req, command, callEnv, notice);
    if (run.kind === 'refused') {
      // The command never started, so running it once in a fresh shell is safe. Only once: a
      // second refusal means the cause is not the session, and the command's status says so.
      this.discard(key, shell);
      shell = start();
      run = await shell.run(req, command, callEnv, sessionReplacedNotice(run.why ?? 'refused'));
      if (run.kind === 'refused') {
        this.discard(key, shell);
        return this.oneShot(req, startConfig, command, commandEnv(startConfig.env, callerEnv));
      }
    }
    const result = run.result;
    if (result.timedOut || result.cancelled || shell.dead) {
      // A timeout or a cancel says so in its own result; a shell that ended after a call that
      // completed is news for the next call.
      if (!result.timedOut && !result.cancelled && run.broken === undefined) {
        this.endedAfterCall.set(key, sessionReplacedNotice(shell.endedOnItsOwn ? 'exited' : 'refused'));
      }
      this.discard(key, shell);
      // A timeout or cancel killed the shell (and waited for it): its replacement starts now, from
      // the same login snapshot, so the session's next call finds it ready instead of paying a start.
      if (result.timedOut || result.cancelled) this.prestart(key, startConfig, req);
    }
    return result;
  }

  /**
   * Starts the persistent shell a call of this session would use, when there is none yet, so that
   * call finds it up (the editor does this while the policy decides and the user answers). Runs
   * nothing in it; does nothing where a call would not use a persistent shell.
   */
  warm(req: { sessionKey: string; cwd: string; sandbox?: 'off' }): void {
    if (this.disposed || this.options.persistent === false || req.sessionKey.includes(ASYNC_KEY_MARK)) return;
    try {
      this.options.sandbox?.levelFor(req.sandbox);
      const config = getShellConfig({ shellPath: this.options.shellPath, shellArgs: this.options.shellArgs, env: this.options.baseEnv });
      if (!PersistentShell.supports(config.shell)) return;
      const sessionEnv = commandEnv(config.env);
      const key = sessionKeyOf(req.sessionKey, config, sessionEnv) + (req.sandbox === 'off' ? '\nsandbox-off' : '');
      const vacant = (): boolean => {
        const shell = this.sessions.get(key);
        return !this.disposed && !(shell && !shell.dead) && !this.quarantined.has(key);
      };
      if (!vacant()) return;
      const login = this.options.loginEnv;
      const ready = login ? login.peek(config) : { config };
      const startShell = (start: ShellConfig): void => {
        try {
          if (vacant()) this.startSession(key, start, req.cwd, req.sandbox);
        } catch {
          // As below: the call itself reports it.
        }
      };
      if (ready) startShell(ready.config);
      // The window's one resolve is under way: the shell starts as soon as it is done (a call that
      // comes first starts its own; this one then finds the session taken).
      else if (login) void login.start(config, { keepNotice: true }).then((s) => startShell(s.config), () => undefined);
    } catch {
      // The call itself reports why it cannot start (sandbox `on` without a sandbox, a bad shell).
    }
  }

  /** Starts the shell of a session whose shell was just discarded (a call's timeout or cancel). */
  private prestart(key: string, config: ShellConfig, req: ExecRequest): void {
    if (this.disposed || this.sessions.has(key)) return;
    try {
      this.startSession(key, config, req.cwd, req.sandbox);
    } catch {
      // The next call starts one itself and reports why it cannot.
    }
  }

  /** Starts the shell of session `key` from `config` and makes it the session's. */
  private startSession(key: string, config: ShellConfig, cwd: string, sandbox: 'off' | undefined): PersistentShell {
    const shell = new PersistentShell({
      shell: config.shell,
      args: config.args,
      env: commandEnv(config.env),
      cwd,
      killGraceMs: this.options.killGraceMs,
      ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
      ...(sandbox ? { sandboxMode: sandbox } : {}),
    });
    this.sessions.set(key, shell);
    return shell;
  }

  /** Drops a session's shell: later calls start a new one; until its kill settles they go one-shot. */
  private discard(key: string, shell: PersistentShell): void {
    if (this.sessions.get(key) === shell) this.sessions.delete(key);
    const settled = shell.kill().finally(() => {
      if (this.quarantined.get(key) === settled) this.quarantined.delete(key);
    });
    this.quarantined.set(key, settled);
  }

  private oneShot(req: ExecRequest, config: ShellConfig, command: string, env: Record<string, string>): Promise<ExecResult> {
    return runOneShot(
      { ...req, command },
      {
        shell: config.shell,
        args: config.args,
        env,
        killGraceMs: this.options.killGraceMs,
        ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
        onSpawn: (child) => {
          this.oneShots.add(child);
          child.once('exit', () => this.oneShots.delete(child));
        },
        onLingering: (pgid) => this.lingering.add(pgid),
      },
    );
  }

  private pruneLingering(): void {
    for (const pgid of this.lingering) if (!groupAlive(pgid)) this.lingering.delete(pgid);
  }

  /** Kills every shell and process this executor started, background children included. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const graceMs = this.options.killGraceMs ?? 1000;
    const kills: Array<Promise<void>> = [];
    for (const shell of this.sessions.values()) kills.push(shell.kill());
    this.sessions.clear();
    for (const child of this.oneShots) kills.push(killProcessTree(child, { graceMs }));
    for (const pgid of this.lingering) {
      if (groupAlive(pgid)) kills.push(killGroupAndWait(pgid, Promise.resolve(), graceMs));
    }
    this.lingering.clear();
    kills.push(...this.quarantined.values());
    await Promise.allSettled(kills);
  }
}

/** `req` whose result starts with `notice` (before any of its own). */
function withNotice(req: ExecRequest, notice: string): ExecRequest {
  const sink = req.sink;
  return {
    ...req,
    sink: {
      push: (chunk) => sink.push(chunk),
      dump: (own) => sink.dump(own === undefined ? notice : `${notice}. ${own}`),
      dispose: () => sink.dispose(),
    },
  };
}

/** Said when a sandboxed session's shell was replaced because its mounts went stale. */
export const SANDBOX_MOUNTS_CHANGED_NOTICE =
  'The OS sandbox now protects paths (a repository, a protected file or a secret that appeared since) that the session\'s shell was started without; ' +
  'it was replaced: variables, functions and the working directory set earlier are gone';

/** The entries of `full` that `session` lacks or has with another value. */
function envDelta(session: Record<string, string>, full: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(full)) if (session[key] !== value) out[key] = value;
  return out;
}

/**
 * The persistent-shell key: session key, shell, prefix, snapshot (none here), the shell env as sorted
 * `K=V` lines, minimizer options (none). Hashed, because the env part alone is kilobytes.
 */
export function sessionKeyOf(sessionKey: string, config: ShellConfig, env: Record<string, string>): string {
  const envText = Object.keys(env)
    .sort()
    .map((k) => `${k}=${env[k]}`)
    .join('\n');
  const hash = createHash('sha256').update([config.shell, config.prefix ?? '', '', envText, ''].join('\n')).digest('hex');
  return `${sessionKey}\n${hash}`;
}
