// One long-lived shell that runs a session's commands one after another, so `export X=1` in one call
// is seen by the next. The protocol, and why each part is there:
//
// - The shell reads its script from stdin (a pipe only we write). Each call is one `eval` of the
//   single-quoted command, so a syntax error stays inside that eval instead of derailing the shell's
//   parser for every later call, and the command runs at top level (not in a function, where
//   `declare` would make its variables local).
// - The command runs as `{ …; eval '…'; …; } </dev/null 1>&2 2>&1 3>&-`: stdin closed; stdout/stderr
//   are both the one output pipe, so they arrive merged in the order written; and because bash saves
//   and restores every fd a group redirects, a command's `exec >file` or `exec <file` cannot break
//   the shell for later calls.
// - The exit status goes to fd 3, a separate pipe that is closed inside the command, tagged with a
//   random per-call nonce. Output cannot forge it, whatever it prints.
// - The call's output lies between two random tokens printed inside the group: bytes before the
//   start token are the wrapper's own (a redirection error), bytes after the end token belong to no
//   call (a background child's late output). Completion is exact and immediate, and a background
//   child that keeps the pipe open (`sleep 30 &`) cannot hold the call.
//
// The user's code shares this shell, so the wrapper depends on nothing it can redefine: every command
// word is `\builtin x` (the backslash defeats aliases, `builtin` skips functions named `printf`, `cd`,
// `eval`), its variables get fresh per-call names (nothing to make readonly in advance), and after
// the command bash drops a function named `builtin` (through `unset`, which POSIX mode looks up before
// functions) and re-enables the builtins it uses. What is left (a stopped shell, `enable -n builtin`,
// `ulimit -n 5`) is caught by a liveness check of the bash itself (in the sandbox's PID namespace): a
// shell that is stopped, or that has read everything we sent without answering, is killed and replaced
// within a second, and the result says so. Before each call, whatever earlier calls left running is
// killed (shellLeftovers.ts) before the script is written, so nothing of theirs can read it.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readlinkSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import * as path from 'node:path';
import type { ExecRequest, ExecResult } from '../core/contracts';
import { exitStatusOf, killProcessTree, signalOfShellStatus, spawnInGroup } from './processTree';
import { cancelledBeforeStart, drainStreams, effectiveDeadlineMs, RunGuard } from './runControl';
import { wrapSpawn, type CallFence, type SandboxRuntime, type WrappedSpawn } from './sandbox/sandboxRuntime';
import { FENCE_BUILTIN_NAME } from './sandbox/readOnly/readOnlySupport';
import { carryFile, dumpScript, loadScript, mayAssign, neverDefinition, syncScript } from './readOnlyCarry';
import { refusalLine } from '../core/sandboxRefusals';
import { interactiveFreeArgs, shellKind, shellQuote } from './shellConfig';
import { resetFirstLine, resetScript, resetStartupScript, SCRATCH_FD_VARIABLE, SESSION_MARK } from './sessionReset';
import { innerShellPid, shellBaseline, shellLeftovers, type ShellBaseline } from './shellLeftovers';
import { shellState, stdinIdentity } from './shellLiveness';

/** The shell's exit status when a call's block could not be read whole (see `framed`); nothing reads it. */
const FRAME_LOST_EXIT = 97;

/** How long leftovers of earlier calls get to die (SIGKILL every 5 ms) before the shell is given up. */
const LEFTOVER_KILL_MS = 1000;

export interface PersistentShellOptions {
  shell: string;
  /** The configured arguments (`-l -c`); the trailing `-c` is dropped, the shell reads stdin. */
  args: readonly string[];
  /** The shell's environment for its whole life (the non-interactive env included). */
  env: Record<string, string>;
  /** Where the shell starts; every call `cd`s to its own cwd anyway. */
  cwd?: string;
  killGraceMs?: number;
  /** Wraps the shell in the OS sandbox / PID namespace for its whole life; absent: runs it as it is. */
  sandbox?: SandboxRuntime;
  /** `off`: this shell runs outside the OS sandbox (still contained). */
  sandboxMode?: 'off';
}

/** Why a session had to be replaced, in the words of the result's notice. */
export const SESSION_BREAK_REASONS = {
  stopped: 'it was stopped by a signal',
  silent: 'it ran the command but no longer reports its end',
  refused: 'it could no longer start commands',
  reset: 'what an earlier command defined could not be reset',
  exited: 'an earlier command ended it',
} as const;
export type SessionBreak = keyof typeof SESSION_BREAK_REASONS;

/** The notice line of a result whose session was replaced. Tests assert it. */
export function sessionReplacedNotice(why: SessionBreak): string {
  return (
    `The shell session stopped answering (${SESSION_BREAK_REASONS[why]}) and was replaced; ` +
    'variables, functions and the working directory set earlier are gone'
  );
}

/** How often a running call checks that its shell can still answer. */
export const LIVENESS_POLL_MS = 200;
/** Consecutive "idle" observations that prove the shell will not answer (rules out a racing read). */
const IDLE_POLLS = 2;

/**
 * One call's outcome. `refused`: the shell could not even start the command (it did not run; a
 * fresh shell may run it). Otherwise the result, and `broken` when the shell had to be killed.
 */
export type PersistentRun = { kind: 'refused'; why?: SessionBreak } | { kind: 'done'; result: ExecResult; broken?: SessionBreak };

/** Per-call variables can only be set through shell syntax when their names are identifiers. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Consumer = ((chunk: Buffer) => void) | undefined;

interface Segment {
  /** Bytes before this token are dropped; undefined = the segment starts at once. */
  start: Buffer | undefined;
  end: Buffer;
  consumer: Consumer;
  onEnd: () => void;
}

/**
 * Splits the output stream at the per-call tokens. Bytes that might be the start of a token split
 * across two reads are held back until the next read decides.
 */
class TokenSplitter {
  private readonly queue: Segment[] = [];
  private pending: Buffer | undefined;

  expect(segment: Segment): void {
    this.queue.push(segment);
  }

  /** Stops waiting for `segment` (its call is over without its tokens). */
  forget(segment: Segment): void {
    const at = this.queue.indexOf(segment);
    if (at >= 0) this.queue.splice(at, 1);
    if (at === 0) this.pending = undefined;
  }

  push(chunk: Buffer): void {
    let buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (buf.length > 0) {
      const segment = this.queue.at(0);
      // Between calls nobody listens: output of an earlier call's background child is dropped.
      if (!segment) return;
      const endAt = buf.indexOf(segment.end);
      if (segment.start) {
        const startAt = buf.indexOf(segment.start);
        if (startAt >= 0 && (endAt < 0 || startAt < endAt)) {
          buf = buf.subarray(startAt + segment.start.length);
          segment.start = undefined;
          continue;
        }
      }
      if (endAt >= 0) {
        if (endAt > 0 && !segment.start) segment.consumer?.(buf.subarray(0, endAt));
        buf = buf.subarray(endAt + segment.end.length);
        this.queue.shift();
        segment.onEnd();
        continue;
      }
      const keep = Math.max(partialTokenSuffix(buf, segment.end), segment.start ? partialTokenSuffix(buf, segment.start) : 0);
      if (buf.length > keep && !segment.start) segment.consumer?.(buf.subarray(0, buf.length - keep));
      if (keep > 0) this.pending = Buffer.from(buf.subarray(buf.length - keep));
      return;
    }
  }
}

/** Length of the longest suffix of `buf` that is a proper prefix of `token`. */
function partialTokenSuffix(buf: Buffer, token: Buffer): number {
  const max = Math.min(token.length - 1, buf.length);
  for (let k = max; k > 0; k -= 1) {
    if (buf[buf.length - k] !== token[0]) continue;
    if (buf.compare(token, 0, k, buf.length - k, buf.length) === 0) return k;
  }
  return 0;
}

function randomToken(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Tokens start with the control byte RS (0x1e, written by printf as `\\036`): the per-chunk search
 * looks for the first byte with a fast scan, and a byte that text never contains keeps that scan at
 * memory speed (a hex first byte made it 30× slower on a stream of `aaaa…`).
 */
const TOKEN_LEAD = '\x1e';
const TOKEN_LEAD_PRINTF = '\\036';
/** The status line (fd 3) a shell writes at its start when it loaded the read-only fence's builtin. */
const FENCE_STATUS = 'agent-bash-fence';

/** What fd 3 says at the end of a call: its status, and whether the command started at all. */
interface StatusLine {
  status: number | undefined;
  started: boolean;
  /** The reset before the command failed (sessionReset.ts): the command did not start. */
  resetFailed: boolean;
}

export class PersistentShell {
  /**
   * Shells whose session can be reset before each call (sessionReset.ts): bash. zsh and sh cannot
   * list what a call defined, so each of their calls gets a fresh shell.
   */
  static supports(shell: string): boolean {
    return shellKind(shell) === 'bash';
  }

  /** True when every per-call variable can be set (and later restored) through shell syntax. */
  static canScope(env: Record<string, string> | undefined): boolean {
    return Object.keys(env ?? {}).every((key) => IDENTIFIER.test(key));
  }

  private readonly child: ChildProcess;
  private readonly stdin: Writable;
  private readonly stdout: Readable;
  private readonly stdinId: string | undefined;
  private readonly splitter = new TokenSplitter();
  private readonly kind: ReturnType<typeof shellKind>;
  /** `\builtin ` where the shell has `builtin`; dash has not, there `\` alone defeats aliases. */
  private readonly builtin: string;
  private statusText = '';
  private readonly statusWaiters = new Map<string, (line: StatusLine) => void>();
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exitWaiters: Array<() => void> = [];
  private killing: Promise<void> | undefined;
  private running = false;
  /**
   * The processes of the shell's cgroup once it was ready (launcher, sandbox, shell): never leftovers.
   * Undefined until then; null when it has no cgroup (or it could not be read then).
   */
  private own: ReadonlySet<number> | null | undefined;
  /** Without a cgroup: what ran the shell when it was ready (shellLeftovers.ts); undefined off Linux. */
  private baseline: ShellBaseline | undefined;
  /** The bash itself (inside the sandbox: in its PID namespace, as a host pid), found once it was ready. */
  private shellPid: number | undefined;
  /** The shell's ends of its control pipes (`socket:[…]`), read once it was ready. */
  private pipes: string[] = [];
  /** Exported (and readonly) by the shell for every process it starts: how an escaped leftover is found. */
  private readonly mark = { name: SESSION_MARK, value: randomToken() };
  private readonly ready: Promise<void>;
  private onReady: () => void = () => undefined;
  private readonly graceMs: number | undefined;
  private readonly wrapped: WrappedSpawn;
  /** Where a refused network request is reported: the running call's output. */
  private report: ((text: string) => void) | undefined;
  /** The read-only fence's builtin this shell tries to load (sandboxed bash only), and whether it did. */
  private readonly fenceBuiltin: string | undefined;
  private fenceLoaded = false;
  /** Settles with the shell's one word on the builtin (its first status line), or its exit. */
  private fenceKnown: Promise<void> = Promise.resolve();
  private onFenceKnown: (() => void) | undefined;
  private readonly sandbox: SandboxRuntime | undefined;
  private readonly pathVar: string;
  private readonly shellPath: string;

  constructor(options: PersistentShellOptions) {
    this.graceMs = options.killGraceMs;
    this.kind = shellKind(options.shell);
    this.sandbox = options.sandbox;
    this.pathVar = (options.env as Partial<Record<string, string>>).PATH ?? '';
    this.shellPath = options.shell;
    this.fenceBuiltin = this.kind === 'bash' && options.sandboxMode !== 'off' ? options.sandbox?.fenceBuiltin() : undefined;
    if (this.fenceBuiltin !== undefined) this.fenceKnown = new Promise<void>((resolve) => (this.onFenceKnown = resolve));
    this.builtin = this.kind === 'sh' ? '\\' : '\\builtin ';
    const cwd = options.cwd && existsSync(options.cwd) ? options.cwd : undefined;
    // Throws SandboxUnavailableError for `on` without a sandbox: the executor reports it.
    this.wrapped = wrapSpawn(options.sandbox, [options.shell, ...interactiveFreeArgs(options.args)], {
      env: options.env,
      ...(options.sandboxMode ? { sandbox: options.sandboxMode } : {}),
      onRefused: (r) => this.report?.(refusalLine(r)),
      // fd 3 is the status pipe; what the sandbox passes goes after it.
      fdSlot: 4,
    });
    this.child = spawnInGroup(this.wrapped.file, this.wrapped.args, {
      cwd,
      env: this.wrapped.env,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', ...(this.wrapped.passFds ?? [])],
    });
    // Read now, while fd 0 is surely still our pipe: the liveness check compares against it.
    this.stdinId = this.child.pid === undefined ? undefined : stdinIdentity(this.child.pid);
    const [stdin, stdout, stderr, status] = this.child.stdio as unknown as [Writable, Readable, Readable, Readable];
    this.stdin = stdin;
    this.stdout = stdout;
    // A write racing the shell's death fails with EPIPE; the exit handler reports the outcome.
    stdin.on('error', () => undefined);
    stdout.on('data', (chunk: Buffer) => this.splitter.push(chunk));
    // Only a login profile writes here (before `exec 2>&1`); read it so it never blocks, and drop it.
    stderr.resume();
    status.setEncoding('utf8');
    status.on('data', (text: string) => this.onStatus(text));
    this.child.once('error', () => this.onExit(null, null));
    this.child.once('exit', (code, signal) => this.onExit(code, signal));

    // Startup output (profile banners) ends at this token and belongs to no call.
    const ready = randomToken();
    this.ready = new Promise<void>((resolve) => (this.onReady = resolve));
    const onReady = (): void => {
      // The shell waits for input now: its cgroup holds just what runs it.
      const members = this.wrapped.members?.();
      this.own = members === undefined ? null : new Set(members);
      const root = this.child.pid;
      if (root !== undefined && this.exitInfo === undefined) {
        this.shellPid = innerShellPid(root, this.stdinId);
        if (this.shellPid !== undefined) {
          const shell = this.shellPid;
          this.pipes = [0, 1, 3].map((fd) => readFdLink(shell, fd)).filter((link): link is string => link !== undefined);
        }
        if (this.own === null) this.baseline = shellBaseline(root, this.shellPid);
      }
      this.onReady();
    };
    this.splitter.expect({ start: undefined, end: Buffer.from(TOKEN_LEAD + ready), consumer: undefined, onEnd: onReady });
    this.write(
      [
        'exec 2>&1',
        // The read-only fence's builtin, loaded before the start state is taken (so the reset keeps it).
        ...(this.fenceBuiltin
          ? [`if \\builtin enable -f ${shellQuote(this.fenceBuiltin)} ${FENCE_BUILTIN_NAME} 2>/dev/null; then \\builtin printf '${FENCE_STATUS} 1\\n' >&3; else \\builtin printf '${FENCE_STATUS} 0\\n' >&3; fi`]
          : []),
        // The start state every call is reset to (functions, aliases, options, sensitive variables),
        // with the pattern of names that never carry (readOnlyCarry.ts) among it.
        ...(this.kind === 'bash' ? [neverDefinition(), resetStartupScript(randomToken().slice(0, 12), this.mark.value)] : []),
        `${this.builtin}printf '${TOKEN_LEAD_PRINTF}%s' '${ready}'`,
        '',
      ].join('\n'),
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The sandbox's mounts this shell started with (undefined: not sandboxed). */
  get mountKey(): string | undefined {
    return this.wrapped.mountKey;
  }

  /** Whether this shell can fence an auto-approved read itself (its builtin loaded), once it is ready. */
  async canFence(): Promise<boolean> {
    if (this.fenceBuiltin === undefined) return false;
    await this.fenceKnown;
    return this.fenceLoaded && !this.dead;
  }

  /** A command is running. */
  get busy(): boolean {
    return this.running;
  }

  /** The shell exited without being killed by us (an `exit` in a command, a `kill $$`). */
  get endedOnItsOwn(): boolean {
    return this.exitInfo !== undefined && this.killing === undefined;
  }

  /** The shell has exited or is being killed: never use it again. */
  get dead(): boolean {
    return this.exitInfo !== undefined || this.killing !== undefined;
  }

  /**
   * Runs one command. `env` is set for this call only and restored afterwards (a command's own
   * `export` of other variables persists). Never throws for a timeout or cancel; after either, or
   * after a `broken`/`refused` outcome, the shell is dead and must be dropped. `notice` heads the
   * result (the caller's word that an earlier shell was replaced).
   */
  async run(req: ExecRequest, commandLine: string, env: Record<string, string> = {}, notice?: string): Promise<PersistentRun> {
    if (req.signal?.aborted) return { kind: 'done', result: await cancelledBeforeStart(req.sink) };
    if (this.running) throw new Error('PersistentShell.run: shell is busy');
    if (this.dead) throw new Error('PersistentShell.run: shell is dead');
    this.running = true;
    try {
      return await this.runInner(req, commandLine, env, notice);
    } finally {
      this.running = false;
    }
  }

  private async runInner(req: ExecRequest, commandLine: string, env: Record<string, string>, notice: string | undefined): Promise<PersistentRun> {
    if (!(await this.killLeftovers(req.signal))) {
      // Something of an earlier call would not die: this shell is not used again.
      await this.kill();
      return { kind: 'refused', why: 'reset' };
    }
    // Stopped between calls (by a leftover, now gone): the command has not started; a fresh shell runs it.
    if (this.shellPid !== undefined && shellState(this.shellPid, this.stdinId) === 'stopped') {
      await this.kill();
      return { kind: 'refused', why: 'stopped' };
    }
    const nonce = randomToken();
    const startToken = randomToken();
    const endToken = randomToken();
    let accepting = true;
    let outputDone = false;
    let line: StatusLine | undefined;
    let broken: SessionBreak | undefined;
    let wake: () => void = () => undefined;
    const progressed = (): void => wake();

    this.report = (text) => {
      if (accepting) req.sink.push(text);
    };
    const segment: Segment = {
      start: Buffer.from(TOKEN_LEAD + startToken),
      end: Buffer.from(TOKEN_LEAD + endToken),
      consumer: (chunk) => {
        if (accepting) req.sink.push(chunk);
      },
      onEnd: () => {
        outputDone = true;
        progressed();
      },
    };
    this.splitter.expect(segment);
    this.statusWaiters.set(nonce, (value) => {
      line = value;
      progressed();
    });
    this.exitWaiters.push(progressed);

    const guard = new RunGuard(effectiveDeadlineMs(req.timeoutMs), req.signal, () => {
      accepting = false;
      void this.kill();
      progressed();
    });
    const stopWatching = this.watchLiveness((why) => {
      broken = why;
      progressed();
    });
    const fence = req.readOnly ? this.callFence(req.readOnly.programs) : undefined;
    this.write(this.framed(this.callScript(req.cwd, commandLine, env, nonce, startToken, endToken, fence), nonce.slice(0, 12)));

    // Done when the status and the end of output arrived (a command that never started prints no
    // end), or the shell died (`exit 3`, a kill), or stopped answering.
    const complete = (): boolean => line !== undefined && (outputDone || !line.started);
    while (!complete() && !this.exitInfo && !guard.reason && !broken) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    stopWatching();
    guard.dispose();
    this.report = undefined;
    this.statusWaiters.delete(nonce);
    const exitIndex = this.exitWaiters.indexOf(progressed);
    if (exitIndex >= 0) this.exitWaiters.splice(exitIndex, 1);

    if (guard.reason) {
      await this.kill();
      const summary = await req.sink.dump(joinNotices(notice, guard.notice()));
      return { kind: 'done', result: { exitCode: undefined, timedOut: guard.reason === 'timeout', cancelled: true, summary } };
    }
    if (line && !line.started) {
      // Nothing of the command ran; what the shell printed was its own complaint (or the reset failed).
      this.splitter.forget(segment);
      await this.kill();
      return line.resetFailed ? { kind: 'refused', why: 'reset' } : { kind: 'refused' };
    }
    if (complete() && line?.status !== undefined) {
      const summary = await req.sink.dump(notice);
      const result: ExecResult = { exitCode: line.status, ...signalOfShellStatus(line.status), timedOut: false, cancelled: false, summary };
      return { kind: 'done', result };
    }
    if (broken) {
      accepting = false;
      this.splitter.forget(segment);
      await this.kill();
      const summary = await req.sink.dump(joinNotices(notice, sessionReplacedNotice(broken)));
      const status = line?.status;
      const result: ExecResult = { exitCode: status, ...(status === undefined ? {} : signalOfShellStatus(status)), timedOut: false, cancelled: false, summary };
      return { kind: 'done', result, broken };
    }
    // The command ended the shell itself. What it wrote before dying may still be in the pipe, and a
    // background child may hold the pipe: the same bounded drain as a one-shot run.
    await drainStreams([this.stdout]);
    accepting = false;
    if (segment.start !== undefined && line === undefined) {
      // The shell died before the call began (the reset's first line met a readonly `IFS`): the
      // command did not run, and a fresh shell may run it.
      this.splitter.forget(segment);
      return { kind: 'refused' };
    }
    const info = this.exitInfo ?? { code: null, signal: null };
    const summary = await req.sink.dump(notice);
    return { kind: 'done', result: { ...exitStatusOf(info.code, info.signal), timedOut: false, cancelled: false, summary } };
  }

  /**
   * Polls the shell's state while a call runs; `onBroken` fires once when it is stopped, or when it
   * sits reading our (fully written) script pipe for IDLE_POLLS checks in a row without having
   * answered. Returns the function that stops the polling.
   */
  private watchLiveness(onBroken: (why: SessionBreak) => void): () => void {
    const pid = this.shellPid ?? this.child.pid;
    if (pid === undefined) return () => undefined;
    let idle = 0;
    const timer = setInterval(() => {
      const state = shellState(pid, this.stdinId);
      idle = state === 'idle' && this.stdin.writableLength === 0 ? idle + 1 : 0;
      if (state === 'stopped') onBroken('stopped');
      else if (idle >= IDLE_POLLS) onBroken('silent');
    }, LIVENESS_POLL_MS);
    return () => clearInterval(timer);
  }

  /**
   * The text of one call. Per-call variables are saved, exported, and put back after the command
   * (unset again when they were unset), so they never leak into the next call. The wrapper's own
   * variables carry a per-call suffix and are unset at the end. The command goes to `eval` after a
   * space: a command that starts with `-` (`--yes`) is then a command, never an option of `eval`.
   * What follows the command runs with stderr to /dev/null: under the user's `set -x` its trace
   * lines would otherwise end up in the command's output.
   */
  /** The fence of one auto-approved read; refused (throws) where this shell cannot set it. */
  private callFence(programs: readonly string[]): CallFence {
    if (!this.fenceLoaded || !this.sandbox) throw new Error('PersistentShell.run: this shell cannot fence a read-only call');
    return this.sandbox.callFence(programs, this.shellPath, this.pathVar);
  }

  /**
   * The command as bash runs it. Where the shell has the fence's builtin (a sandboxed bash), always
   * in a subshell, so the session's shell itself never runs a command's code: what a command defines
   * or disables there (`enable -n builtin unset` with functions of those names, a loaded builtin, a
   * trap) dies with the subshell and cannot take over the wrapper of a later call, and what carries
   * (plain and exported variables, readOnlyCarry.ts) is written out and assigned back as data. An
   * auto-approved read's subshell sets the read-only fence first (nothing runs when it cannot).
   * Elsewhere (sandbox off, no builtin) an unfenced command runs at top level, reset before each call.
   */
  private evalText(command: string, fence: CallFence | undefined, v: string, isolated: string | undefined): string {
    const b = this.builtin;
    const run = `${b}eval ${shellQuote(` ${command}`)}\n`;
    const status = `__agent_bash_rst_${v}`;
    if (!fence) {
      if (!this.isolates) return run;
      if (isolated === undefined) return `( ${run})`;
      return `( ${run}${status}=$?; ${dumpScript(isolated, v, true)} ${b}exit $${status}\n)`;
    }
    const env = Object.entries(fence.env).map(([k, val]) => `${k}=${shellQuote(val)}`).join(' ');
    // What it assigns carries back to the session as any call's would (readOnlyCarry.ts).
    const carry = mayAssign(command) ? `${status}=$?; ${dumpScript(carryFile(fence.scratch), v)} ${b}exit $${status}\n` : '';
    return (
      `( ${b}${FENCE_BUILTIN_NAME} ${fence.specs.map(shellQuote).join(' ')} || ${b}exit 126; ` +
      `${b}unset -v ${fence.unset.join(' ')}; ${b}export ${env}; ${run}${carry})`
    );
  }

  /** Unfenced commands run in a subshell: this shell has the fence's builtin (which copies what carries). */
  private get isolates(): boolean {
    return this.fenceLoaded && this.sandbox !== undefined;
  }

  /**
   * Where an unfenced command's subshell writes what carries: undefined where it runs at top level,
   * and where the command plainly assigns nothing (mayAssign: a line it misses carries nothing).
   */
  private isolatedCarry(command: string, fence: CallFence | undefined, v: string): string | undefined {
    if (fence || !this.isolates || !this.sandbox || !mayAssign(command)) return undefined;
    return path.join(this.sandbox.tmpDir(), `.agent-bash-vars-${process.pid}-${v}`);
  }

  private callScript(cwd: string, command: string, env: Record<string, string>, nonce: string, start: string, end: string, fence?: CallFence): string {
    const b = this.builtin;
    const v = nonce.slice(0, 12);
    const go = `__agent_bash_go_${v}`;
    const st = `__agent_bash_st_${v}`;
    const opts = `__agent_bash_opts_${v}`;
    const rs = `__agent_bash_rs_${v}`;
    const own = [go, st, opts, rs];
    const save: string[] = [];
    const set: string[] = [];
    const restore: string[] = [];
    Object.keys(env).forEach((key, i) => {
      const had = `__agent_bash_had_${i}_${v}`;
      const old = `__agent_bash_old_${i}_${v}`;
      own.push(had, old);
      // `case` is syntax: no `[`/`test` that a function could replace.
      save.push(`case \${${key}+x} in x) ${had}=1; ${old}=$${key};; *) ${had}=;; esac;`);
      set.push(`${b}export ${key}=${shellQuote(env[key])};`);
      restore.push(`case $${had} in 1) ${b}export ${key}="$${old}";; *) ${b}unset ${key};; esac;`);
    });
    // bash: the session is reset to its start state first (sessionReset.ts), at top level (outside the
    // command's group: no saved descriptor of the group's exists yet, and the scratch file is open);
    // if that fails the command does not start and the status line says so (its fourth field).
    const reset = this.kind === 'bash' ? resetScript(v, own) : 'true';
    const isolated = this.isolatedCarry(command, fence, v);
    // What the command's subshell carries back is assigned before the call's own `env` is put back,
    // so a variable set for this call only stays so.
    const load = isolated
      ? `${syncScript(isolated, `${isolated}.copy`, v)} ${b}${FENCE_BUILTIN_NAME} -r ${shellQuote(isolated)}; `
      : fence && mayAssign(command)
        ? loadScript(carryFile(fence.scratch), `${fence.scratch}.vars`, v)
        : '';
    return (
      (this.kind === 'bash' ? resetFirstLine() : '') +
      `${save.join(' ')} if ${reset}; then ${go}=1; else ${rs}=1; fi; { case $${go} in 1) ${b}printf '${TOKEN_LEAD_PRINTF}%s' '${start}'; ` +
      `${b}cd -- ${shellQuote(cwd)} && { ${set.join(' ')} ${this.evalText(command, fence, v, isolated)}` +
      `}; esac; { ${st}=$?; ${this.healScript(opts)} ${load}${restore.join(' ')} ` +
      (fence ? `${b}${FENCE_BUILTIN_NAME} -r ${shellQuote(fence.scratch)}; ` : '') +
      `${b}printf '${TOKEN_LEAD_PRINTF}%s' '${end}'; } 2>/dev/null; ` +
      `} </dev/null 1>&2 2>&1 3>&-${this.kind === 'bash' ? ` {${SCRATCH_FD_VARIABLE}}>&-` : ''}; ${b}printf '%s %s %s %s\\n' '${nonce}' "\${${st}:-x}" "\${${go}:-0}" "\${${rs}:-0}" >&3; ` +
      `${b}unset ${own.join(' ')}\n`
    );
  }

  /**
   * bash reads a script from a pipe one byte per system call (it must not read past a line a command
   * could read); on this kind of machine that was 1.5 µs a byte, 3-4 ms for a call's 2 KB. So after the
   * first line (sent as it is: it drops the aliases before anything else is parsed) a call is one short
   * line that reads the rest as a counted block, which bash reads in large pieces, and evaluates it at
   * top level. The count is in bytes (`LC_ALL=C`), the variable's name is the call's own (nothing can
   * make it readonly in advance), and `TMOUT` is emptied for the read (bash's default timeout for
   * `read`: a command's `TMOUT=0.0001` made it stop part-way). Should `read` fail anyway (a disabled
   * builtin, a readonly `LC_ALL` or `TMOUT`, a timeout) the shell exits with FRAME_LOST_EXIT: bash
   * must never read what is left of the block as script, which would start inside the command's
   * quoted text, outside any fence. The call then reports a replaced shell.
   */
  private framed(script: string, v: string): string {
    if (this.kind !== 'bash' || script.includes('\0')) return script;
    const cut = script.indexOf('\n') + 1;
    const first = script.slice(0, cut);
    const rest = script.slice(cut);
    const name = `__agent_bash_call_${v}`;
    const body = `${rest}\\builtin unset ${name}\n`;
    // POSIX mode (the first line's) makes `read -N` read one byte at a time too: it is left first
    // (the reset puts every option back as the shell started anyway).
    return (
      `${first}\\builtin unset -v POSIXLY_CORRECT; if TMOUT= LC_ALL=C \\builtin read -r -N ${Buffer.byteLength(body)} ${name}; ` +
      `then \\builtin eval "$${name}"; else \\builtin exit ${FRAME_LOST_EXIT}; fi\n${body}`
    );
  }

  /**
   * bash only: drop a function named `builtin` (POSIX mode finds the special builtin `unset` before
   * any function) and re-enable the builtins the wrapper calls, so what a command redefined cannot
   * silence the rest of the call. Leaving POSIX mode again turns `expand_aliases` off and leaves
   * `inherit_errexit` on; both are put back as they were (read from $BASHOPTS: no builtin needed).
   */
  private healScript(opts: string): string {
    if (this.kind !== 'bash') return '';
    // The command's DEBUG, RETURN and ERR traps go first, before the status is sent: the next call's
    // script is written only after it, so no trap of this call runs while that script can be read.
    const hooks = "\\unset -f builtin trap; \\trap - DEBUG RETURN ERR;";
    return (
      `if [[ -o posix ]]; then ${hooks} else ${opts}=:$BASHOPTS:; POSIXLY_CORRECT=y; ${hooks} \\unset POSIXLY_CORRECT; ` +
      `case $${opts} in *:expand_aliases:*) \\builtin shopt -s expand_aliases;; *) \\builtin shopt -u expand_aliases;; esac; ` +
      `case $${opts} in *:inherit_errexit:*) ;; *) \\builtin shopt -u inherit_errexit;; esac; fi; ` +
      '\\builtin enable cd eval export printf shopt unset; \\builtin shopt -u extdebug; \\builtin set +o functrace +o errtrace;'
    );
  }

  /**
   * Kills what earlier calls left running, before the next one starts: everything in the shell's
   * cgroup that was not there when it became ready (one read of `cgroup.procs`), or, without a cgroup,
   * every leftover /proc shows (shellLeftovers.ts: the launcher's new descendants, what carries the
   * shell's mark, what holds its control pipes). False when a leftover outlived a second of SIGKILLs.
   */
  private async killLeftovers(signal: AbortSignal | undefined): Promise<boolean> {
    // A shell still starting has run no call: nothing of one can be left. Waited for (its snapshot
    // must come first), but never past the caller's abort, which the call's own guard then handles.
    if (this.own === undefined && signal?.aborted !== true) {
      let onAbort = (): void => undefined;
      const aborted = new Promise<void>((resolve) => {
        onAbort = () => resolve();
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      await Promise.race([this.ready, aborted]);
      signal?.removeEventListener('abort', onAbort);
    }
    const own = this.own;
    const base = this.baseline;
    const leftovers = (): number[] | undefined => {
      if (own) return this.wrapped.members?.()?.filter((pid) => !own.has(pid));
      return base ? shellLeftovers(base, { mark: this.mark, pipes: this.pipes }) : undefined;
    };
    let left = leftovers();
    if (left === undefined) return true;
    const deadline = Date.now() + LEFTOVER_KILL_MS;
    for (;;) {
      if (left.length === 0) {
        // What a killed leftover wrote to the status pipe without a newline belongs to no call.
        this.statusText = '';
        return true;
      }
      if (Date.now() > deadline) return false;
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      left = leftovers() ?? [];
    }
  }

  /** Kills the shell's process group (and escaped descendants); resolves once it has exited. */
  kill(): Promise<void> {
    if (!this.killing) {
      this.stdin.destroy();
      this.killing = killProcessTree(this.child, { graceMs: this.graceMs });
    }
    return this.killing;
  }

  private write(text: string): void {
    if (!this.stdin.destroyed && this.stdin.writable) this.stdin.write(text);
  }

  private onStatus(text: string): void {
    this.statusText += text;
    let newline = this.statusText.indexOf('\n');
    while (newline >= 0) {
      const raw = this.statusText.slice(0, newline);
      this.statusText = this.statusText.slice(newline + 1);
      // The fence's builtin says it loaded once, while the shell starts (nothing of a call runs yet).
      // Only the first such line counts: it comes before the shell reads any call.
      if (this.onFenceKnown && raw.startsWith(`${FENCE_STATUS} `)) {
        this.fenceLoaded = raw === `${FENCE_STATUS} 1`;
        this.onFenceKnown();
        this.onFenceKnown = undefined;
      }
      // A line is found by its nonce wherever it starts: bytes a leftover wrote before it cannot hide it.
      const [nonce, value, started, reset] = lineFromNonce(raw, this.statusWaiters.keys()).split(' ');
      const waiter = this.statusWaiters.get(nonce);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a status line from the shell process may have fewer fields than split() is typed with
      if (waiter) waiter({ status: /^\d+$/.test(value ?? '') ? Number(value) : undefined, started: started === '1', resetFailed: reset === '1' });
      newline = this.statusText.indexOf('\n');
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitInfo) return;
    this.exitInfo = { code, signal };
    this.onReady();
    this.onFenceKnown?.();
    this.wrapped.dispose();
    for (const waiter of this.exitWaiters.splice(0)) waiter();
  }
}

/** Two notices as one line (the sink takes one). */
function joinNotices(first: string | undefined, second: string | undefined): string | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  return `${first}. ${second}`;
}

/** `raw` from the first waiting nonce it holds (the whole line when it holds none). */
function lineFromNonce(raw: string, nonces: Iterable<string>): string {
  for (const nonce of nonces) {
    const at = raw.lastIndexOf(nonce);
    if (at >= 0) return raw.slice(at);
  }
  return raw;
}

/** What descriptor `fd` of `pid` is (`socket:[…]`), or undefined. */
function readFdLink(pid: number, fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}
