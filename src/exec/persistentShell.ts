// One long-lived shell that runs a session's commands one after another, so `export X=1` in one call
// is seen by the next. The protocol, and why each part is there:
//
// - The shell reads its script from stdin (a pipe only we write). Each call is one `eval` of the
//   single-quoted command, so a syntax error stays inside that eval instead of derailing the shell's
//   parser for every later call, and the command runs at top level (not in a function, where
//   `declare` would make its variables local).
// - The command runs as `{ eval '…'; } </dev/null 1>&2 2>&1 3>&-`: stdin closed; stdout/stderr are
//   both the one output pipe, so they arrive merged in the order written; and because bash saves and
//   restores every fd a group redirects, a command's `exec >file` or `exec <file` cannot break the
//   shell for later calls.
// - The exit status goes to fd 3, a separate pipe that is closed inside the command, tagged with a
//   random per-call nonce. Output cannot forge it, whatever it prints.
// - Where the call's output ends is marked in the output pipe by a second random token written after
//   the status; everything before it belongs to the call. That makes completion exact and immediate
//   (no idle wait per call), while a background child that keeps the pipe open (`sleep 30 &`) cannot
//   hold the call: its later output is simply not this call's.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { ExecRequest, ExecResult } from '../core/contracts';
import { exitStatusOf, killProcessTree, signalOfShellStatus, spawnInGroup } from './processTree';
import { cancelledBeforeStart, drainStreams, effectiveDeadlineMs, RunGuard } from './runControl';
import { wrapSpawn, type SandboxRuntime, type WrappedSpawn } from './sandbox/sandboxRuntime';
import { refusalLine } from './sandbox/violations';
import { interactiveFreeArgs, shellKind, shellQuote } from './shellConfig';

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

/** Per-call variables can only be set through shell syntax when their names are identifiers. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Consumer = ((chunk: Buffer) => void) | undefined;

interface Segment {
  token: Buffer;
  consumer: Consumer;
  onEnd: () => void;
}

/**
 * Splits the output stream at the per-call end tokens. Bytes that might be the start of a token
 * split across two reads are held back until the next read decides.
 */
class TokenSplitter {
  private readonly queue: Segment[] = [];
  private pending: Buffer | undefined;

  expect(segment: Segment): void {
    this.queue.push(segment);
  }

  push(chunk: Buffer): void {
    let buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (buf.length > 0) {
      const segment = this.queue[0];
      // Between calls nobody listens: output of an earlier call's background child is dropped.
      if (!segment) return;
      const at = buf.indexOf(segment.token);
      if (at >= 0) {
        if (at > 0) segment.consumer?.(buf.subarray(0, at));
        buf = buf.subarray(at + segment.token.length);
        this.queue.shift();
        segment.onEnd();
        continue;
      }
      const keep = partialTokenSuffix(buf, segment.token);
      if (buf.length > keep) segment.consumer?.(buf.subarray(0, buf.length - keep));
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
 * End tokens start with the control byte RS (0x1e, written by printf as `\\036`): the per-chunk
 * search looks for the first byte with a fast scan, and a byte that text never contains keeps
 * that scan at memory speed (a hex first byte made it 30× slower on a stream of `aaaa…`).
 */
const TOKEN_LEAD = '\x1e';
const TOKEN_LEAD_PRINTF = '\\036';

export class PersistentShell {
  /** Shells whose syntax the protocol above is written in. */
  static supports(shell: string): boolean {
    const kind = shellKind(shell);
    return kind === 'bash' || kind === 'zsh' || kind === 'sh';
  }

  /** True when every per-call variable can be set (and later restored) through shell syntax. */
  static canScope(env: Record<string, string> | undefined): boolean {
    return Object.keys(env ?? {}).every((key) => IDENTIFIER.test(key));
  }

  private readonly child: ChildProcess;
  private readonly stdin: Writable;
  private readonly stdout: Readable;
  private readonly splitter = new TokenSplitter();
  private readonly builtin: string;
  private statusText = '';
  private readonly statusWaiters = new Map<string, (status: number) => void>();
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exitWaiters: Array<() => void> = [];
  private killing: Promise<void> | undefined;
  private running = false;
  private readonly graceMs: number | undefined;
  private readonly wrapped: WrappedSpawn;
  /** Where a refused network request is reported: the running call's output. */
  private report: ((text: string) => void) | undefined;

  constructor(options: PersistentShellOptions) {
    this.graceMs = options.killGraceMs;
    // dash has no `builtin`; bash and zsh do, and it keeps a user's `cd`/`printf` function out of it.
    this.builtin = shellKind(options.shell) === 'sh' ? '' : 'builtin ';
    const cwd = options.cwd && existsSync(options.cwd) ? options.cwd : undefined;
    // Throws SandboxUnavailableError for `on` without a sandbox: the executor reports it.
    this.wrapped = wrapSpawn(options.sandbox, [options.shell, ...interactiveFreeArgs(options.args)], {
      env: options.env,
      ...(options.sandboxMode ? { sandbox: options.sandboxMode } : {}),
      onRefused: (r) => this.report?.(refusalLine(r.host, r.port)),
    });
    this.child = spawnInGroup(this.wrapped.file, this.wrapped.args, {
      cwd,
      env: this.wrapped.env,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
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
    this.splitter.expect({ token: Buffer.from(TOKEN_LEAD + ready), consumer: undefined, onEnd: () => undefined });
    this.write(
      [
        'exec 2>&1',
        // Aliases defined by one call should work in the next, as in a terminal.
        '[ -n "${BASH_VERSION:-}" ] && shopt -s expand_aliases',
        `${this.builtin}printf '${TOKEN_LEAD_PRINTF}%s' '${ready}'`,
        '',
      ].join('\n'),
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** A command is running. */
  get busy(): boolean {
    return this.running;
  }

  /** The shell has exited or is being killed: never use it again. */
  get dead(): boolean {
    return this.exitInfo !== undefined || this.killing !== undefined;
  }

  /**
   * Runs one command. `env` is set for this call only and restored afterwards (a command's own
   * `export` of other variables persists). Never throws for a timeout or cancel; after either the
   * shell is dead and must be dropped.
   */
  async run(req: ExecRequest, commandLine: string, env: Record<string, string> = {}): Promise<ExecResult> {
    if (req.signal?.aborted) return cancelledBeforeStart(req.sink);
    if (this.running) throw new Error('PersistentShell.run: shell is busy');
    if (this.dead) throw new Error('PersistentShell.run: shell is dead');
    this.running = true;
    try {
      return await this.runInner(req, commandLine, env);
    } finally {
      this.running = false;
    }
  }

  private async runInner(req: ExecRequest, commandLine: string, env: Record<string, string>): Promise<ExecResult> {
    const nonce = randomToken();
    const endToken = randomToken();
    let accepting = true;
    let outputDone = false;
    let status: number | undefined;
    let wake: () => void = () => undefined;
    const progressed = (): void => wake();

    this.report = (text) => {
      if (accepting) req.sink.push(text);
    };
    this.splitter.expect({
      token: Buffer.from(TOKEN_LEAD + endToken),
      consumer: (chunk) => {
        if (accepting) req.sink.push(chunk);
      },
      onEnd: () => {
        outputDone = true;
        progressed();
      },
    });
    this.statusWaiters.set(nonce, (value) => {
      status = value;
      progressed();
    });
    this.exitWaiters.push(progressed);

    const guard = new RunGuard(effectiveDeadlineMs(req.timeoutMs), req.signal, () => {
      accepting = false;
      void this.kill();
      progressed();
    });
    this.write(this.callScript(req.cwd, commandLine, env, nonce, endToken));

    // Done when both the status and the end of output arrived, or the shell died (`exit 3`, a kill).
    while (!(status !== undefined && outputDone) && !this.exitInfo && !guard.reason) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    guard.dispose();
    this.report = undefined;
    this.statusWaiters.delete(nonce);
    const exitIndex = this.exitWaiters.indexOf(progressed);
    if (exitIndex >= 0) this.exitWaiters.splice(exitIndex, 1);

    if (guard.reason) {
      await this.kill();
      const summary = await req.sink.dump(guard.notice());
      return { exitCode: undefined, timedOut: guard.reason === 'timeout', cancelled: true, summary };
    }
    if (status !== undefined && outputDone) {
      const summary = await req.sink.dump();
      return { exitCode: status, ...signalOfShellStatus(status), timedOut: false, cancelled: false, summary };
    }
    // The command ended the shell itself. What it wrote before dying may still be in the pipe, and a
    // background child may hold the pipe: the same bounded drain as a one-shot run.
    await drainStreams([this.stdout]);
    accepting = false;
    const info = this.exitInfo ?? { code: null, signal: null };
    const summary = await req.sink.dump();
    return { ...exitStatusOf(info.code, info.signal), timedOut: false, cancelled: false, summary };
  }

  /**
   * The text of one call. Per-call variables are saved, exported, and put back after the command
   * (unset again when they were unset), so they never leak into the next call.
   */
  private callScript(cwd: string, command: string, env: Record<string, string>, nonce: string, endToken: string): string {
    const b = this.builtin;
    const save: string[] = [];
    const set: string[] = [];
    const restore: string[] = [];
    Object.keys(env).forEach((key, i) => {
      const had = `__agent_bash_had_${i}`;
      const old = `__agent_bash_old_${i}`;
      save.push(`if [ -n "\${${key}+x}" ]; then ${had}=1; ${old}=$${key}; else ${had}=; fi;`);
      set.push(`export ${key}=${shellQuote(env[key])};`);
      restore.push(`if [ -n "$${had}" ]; then export ${key}="$${old}"; else unset ${key}; fi; unset ${had} ${old};`);
    });
    return (
      `${save.join(' ')} ${b}cd -- ${shellQuote(cwd)} && { ${set.join(' ')} eval ${shellQuote(command)}\n` +
      `} </dev/null 1>&2 2>&1 3>&-; __agent_bash_status=$?; ${restore.join(' ')} ` +
      `${b}printf '%s %s\\n' '${nonce}' "$__agent_bash_status" >&3; ${b}printf '${TOKEN_LEAD_PRINTF}%s' '${endToken}'\n`
    );
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
      const line = this.statusText.slice(0, newline);
      this.statusText = this.statusText.slice(newline + 1);
      const [nonce, value] = line.split(' ');
      const waiter = this.statusWaiters.get(nonce);
      if (waiter && value !== undefined && /^\d+$/.test(value)) waiter(Number(value));
      newline = this.statusText.indexOf('\n');
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitInfo) return;
    this.exitInfo = { code, signal };
    this.wrapped.dispose();
    for (const waiter of this.exitWaiters.splice(0)) waiter();
  }
}
