// The interactive path (docs/ARCHITECTURE.md, Routes): the command in a real pseudo-terminal, for
// programs that need one (prompts, curses, `read`). Backed by `@lydell/node-pty` 1.1.0: the same code as
// node-pty 1.1.0 but shipped with prebuilt N-API binaries per platform, so users never need a compiler
// and one build serves every Node ABI (the Node 20 CLI and the Node 24 code-server extension host
// alike).
//
// The module is loaded lazily with `require`: a missing or broken native binary only fails PTY runs,
// each with `PTY error: <msg>`, and never the extension's activation.
import { randomBytes } from 'node:crypto';
import type * as NodePty from '@lydell/node-pty';
import type { ExecResult, OutputSummary, PtyExecutor, PtyRequest, PtySession } from '../core/contracts';
import { withUnsets } from '../core/envPreflight';
import { commandEnv } from '../core/nonInteractiveEnv';
import { groupAlive, killGroupAndWait, signalName } from './processTree';
import { effectiveDeadlineMs, RunGuard } from './runControl';
import { wrapSpawn, type SandboxRuntime } from './sandbox/sandboxRuntime';
import { refusalLine } from '../core/sandboxRefusals';
import { getShellConfig, shellKind, withPrefix } from './shellConfig';
import type { LoginEnvironment } from './loginEnvironment';

export type NodePtyModule = typeof NodePty;

export const PTY_TERM = 'xterm-256color';
export const DEFAULT_PTY_COLS = 80;
export const DEFAULT_PTY_ROWS = 24;
export const ptyErrorLine = (msg: string): string => `PTY error: ${msg}\n`;

/** Marks of the agent's non-interactive runs that would get in a person's way in a terminal. */
let loaded: NodePtyModule | undefined;

/** `require('@lydell/node-pty')` on first use; throws the loader's error when it cannot load. */
export function loadNodePty(): NodePtyModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, so a missing native module fails the PTY run, not activation.
  loaded ??= require('@lydell/node-pty') as NodePtyModule;
  return loaded;
}

export interface NodePtyExecutorOptions {
  shellPath?: string;
  shellArgs?: string[];
  baseEnv?: NodeJS.ProcessEnv;
  killGraceMs?: number;
  /** Wraps the shell in the OS sandbox / PID namespace; absent: runs it as it is. */
  sandbox?: SandboxRuntime;
  /** Replaces the module loader (tests use it to simulate a missing native module). */
  loadModule?: () => NodePtyModule;
  /** The login environment resolved once (loginEnvironment.ts): login shells start without `-l`, from it. */
  loginEnv?: LoginEnvironment;
}

/**
 * CRLF and lone CR (progress frames) become LF for the captured copy; the live view (`onData`)
 * keeps the raw stream. A CR at the end of a chunk waits for the next chunk's first character.
 */
export class CrNormalizer {
  private heldCR = false;

  push(text: string): string {
    let input = text;
    let prefix = '';
    if (this.heldCR) {
      this.heldCR = false;
      prefix = '\n';
      if (input.startsWith('\n')) input = input.slice(1);
    }
    if (input.endsWith('\r')) {
      this.heldCR = true;
      input = input.slice(0, -1);
    }
    return prefix + input.replace(/\r\n?/g, '\n');
  }

  flush(): string {
    if (!this.heldCR) return '';
    this.heldCR = false;
    return '\n';
  }
}

/**
 * node-pty tears its reader down 200 ms after the child exits, so output still queued in the
 * terminal when a busy host reads slowly is lost (the tail, which matters most). The command is
 * therefore followed by an invisible OSC end marker and a loop that holds the terminal open until
 * we have seen the marker and answer with the nonce. The loop skips lines the user typed after the
 * program ended and an end of input (Ctrl+D) the program never read; after three ends of input the
 * terminal is gone and it stops waiting. A command that exits the shell itself skips the handshake
 * and falls back to the plain exit.
 */
export function ptyEndMarker(nonce: string): string {
  return `\x1b]633;AgentBashEnd;${nonce}\x07`;
}

/** What we type to release the wait that follows the end marker (after ending any half-typed line). */
export function ptyAck(nonce: string): string {
  return `\n${nonce}\n`;
}

export function ptyCommandLine(command: string, nonce: string, shell: string): string {
  const kind = shellKind(shell);
  if (kind !== 'bash' && kind !== 'zsh' && kind !== 'sh') return command;
  return (
    `${command}\n__agent_bash_status=$?; printf '\\033]633;AgentBashEnd;%s\\007' '${nonce}'; __agent_bash_eof=0; ` +
    `while :; do if IFS= read -r __agent_bash_ack; then [ "$__agent_bash_ack" = '${nonce}' ] && break; ` +
    'else __agent_bash_eof=$((__agent_bash_eof + 1)); [ "$__agent_bash_eof" -ge 3 ] && break; fi; done; exit "$__agent_bash_status"'
  );
}

/** Finds the end marker in a string stream; text that may be its beginning is held back. */
class MarkerScanner {
  private held = '';
  found = false;

  constructor(private readonly marker: string) {}

  /** The part of `data` that precedes the marker (all of it while the marker has not appeared). */
  push(data: string): string {
    if (this.found) return '';
    const text = this.held + data;
    this.held = '';
    const at = text.indexOf(this.marker);
    if (at >= 0) {
      this.found = true;
      return text.slice(0, at);
    }
    for (let k = Math.min(this.marker.length - 1, text.length); k > 0; k -= 1) {
      if (this.marker.startsWith(text.slice(text.length - k))) {
        this.held = text.slice(text.length - k);
        return text.slice(0, text.length - k);
      }
    }
    return text;
  }

  /** What was held back when the stream ended without the marker. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}

export class NodePtyExecutor implements PtyExecutor {
  private readonly live = new Set<PtyRun>();

  constructor(private readonly options: NodePtyExecutorOptions = {}) {}

  start(req: PtyRequest): PtySession {
    const run = new PtyRun(req, this.options);
    this.live.add(run);
    void run.result.finally(() => this.live.delete(run));
    return run;
  }

  /** Kills every PTY still running. */
  async dispose(): Promise<void> {
    const runs = [...this.live];
    for (const run of runs) run.kill();
    await Promise.allSettled(runs.map((run) => run.result));
  }
}

class PtyRun implements PtySession {
  readonly result: Promise<ExecResult>;
  private pty: NodePty.IPty | undefined;
  private finished = false;
  private cancelled = false;
  private killing: Promise<void> | undefined;
  private exitPromise: Promise<void> = Promise.resolve();
  private readonly normalizer = new CrNormalizer();

  constructor(
    private readonly req: PtyRequest,
    private readonly options: NodePtyExecutorOptions,
  ) {
    this.result = this.begin();
  }

  write(data: string): void {
    if (!this.finished && this.pty) this.pty.write(data);
  }

  resize(cols: number, rows: number): void {
    if (this.finished || !this.pty) return;
    try {
      this.pty.resize(Math.max(1, Math.floor(cols)), Math.max(1, Math.floor(rows)));
    } catch {
      // The pty closed between our check and the ioctl; nothing left to resize.
    }
  }

  /** The user's Esc or a closed terminal: cancelled, without an aborted signal. */
  kill(): void {
    if (this.finished) return;
    this.cancelled = true;
    void this.killGroup();
  }

  private killGroup(): Promise<void> {
    if (!this.killing) {
      const pid = this.pty?.pid;
      // forkpty makes the child a session (and group) leader, so its pid is the group id.
      this.killing = pid === undefined ? Promise.resolve() : killGroupAndWait(pid, this.exitPromise, this.options.killGraceMs ?? 1000);
    }
    return this.killing;
  }

  private async begin(): Promise<ExecResult> {
    const { req } = this;
    const sink = req.sink;
    if (req.signal?.aborted) {
      this.finished = true;
      return { exitCode: undefined, timedOut: false, cancelled: true, summary: await sink.dump() };
    }

    let status: { exitCode: number | undefined; signal?: string };
    let guard: RunGuard | undefined;
    let loginNotice: string | undefined;
    try {
      const nodePty = (this.options.loadModule ?? loadNodePty)();
      const login = getShellConfig({ shellPath: this.options.shellPath, shellArgs: this.options.shellArgs, env: this.options.baseEnv });
      const start = this.options.loginEnv ? await this.options.loginEnv.start(login) : { config: login };
      loginNotice = start.notice;
      // Killed or aborted while the login environment was resolved: nothing started.
      if (this.cancelled || req.signal?.aborted) {
        this.finished = true;
        return { exitCode: undefined, timedOut: false, cancelled: true, summary: await sink.dump(loginNotice) };
      }
      const config = start.config;
      // The same neutralising environment as every route (git runs no fsmonitor, pagers are cat).
      const env = commandEnv(config.env, req.env, { terminal: PTY_TERM });

      const nonce = randomBytes(12).toString('hex');
      const scanner = new MarkerScanner(ptyEndMarker(nonce));
      const line = ptyCommandLine(withUnsets(withPrefix(req.command, config.prefix), req.unset), nonce, config.shell);
      let accepting = true;
      const wrapped = wrapSpawn(this.options.sandbox, [config.shell, ...config.args, line], {
        env,
        // node-pty passes no descriptors beyond the terminal.
        fdSlot: 'none',
        ...(req.env ? { given: req.env } : {}),
        ...(req.sandbox ? { sandbox: req.sandbox } : {}),
        ...(req.readOnly ? { readOnly: req.readOnly } : {}),
        onRefused: (r) => {
          if (accepting) sink.push(refusalLine(r));
        },
      });
      let pty: NodePty.IPty;
      try {
        pty = nodePty.spawn(wrapped.file, wrapped.args, {
          name: PTY_TERM,
          cols: req.cols ?? DEFAULT_PTY_COLS,
          rows: req.rows ?? DEFAULT_PTY_ROWS,
          cwd: req.cwd,
          env: wrapped.env,
        });
      } catch (err) {
        wrapped.dispose();
        throw err;
      }
      this.pty = pty;

      const deliver = (text: string): void => {
        if (text === '') return;
        req.onData?.(text);
        if (accepting) sink.push(this.normalizer.push(text));
      };
      const dataSub = pty.onData((data) => {
        if (scanner.found) return;
        deliver(scanner.push(data));
        // Everything the command wrote has been read: release the trailing `read`.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- scanner.push() above sets found; TypeScript keeps the narrowing from the early return
        if (scanner.found) pty.write(ptyAck(nonce));
      });
      const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => {
        const exitSub = pty.onExit((event) => {
          exitSub.dispose();
          resolve(event);
        });
      });
      this.exitPromise = exited.then(() => undefined);

      guard = new RunGuard(effectiveDeadlineMs(req.timeoutMs), req.signal, () => {
        accepting = false;
        this.cancelled = true;
        void this.killGroup();
      });
      const event = await exited;
      wrapped.dispose();
      guard.dispose();
      dataSub.dispose();
      if (this.killing) await this.killing;
      // A background child left in the terminal's session dies with it: a PTY run leaves nothing.
      if (groupAlive(pty.pid)) await killGroupAndWait(pty.pid, Promise.resolve(), this.options.killGraceMs ?? 1000);
      deliver(scanner.flush());
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the guard's callback clears `accepting` while we await.
      if (accepting) sink.push(this.normalizer.flush());
      const name = event.signal && event.signal > 0 ? signalName(event.signal) : undefined;
      status = event.signal && event.signal > 0 ? { exitCode: 128 + event.signal, ...(name ? { signal: name } : {}) } : { exitCode: event.exitCode };
    } catch (err) {
      guard?.dispose();
      sink.push(ptyErrorLine(err instanceof Error ? err.message : String(err)));
      status = { exitCode: undefined };
    }
    this.finished = true;

    const summary: OutputSummary = await sink.dump(loginNotice);
    const timedOut = guard?.reason === 'timeout';
    if (this.cancelled) return { exitCode: undefined, timedOut, cancelled: true, summary };
    return { ...status, timedOut: false, cancelled: false, summary };
  }
}
