// The agent as a child process: its own process group (so everything it spawned goes with it), ACP on
// stdin/stdout as web streams for the SDK, stderr lines to the log. Killing is TERM to the group, then
// KILL after a grace period, bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import type { AcpAgentConfig } from './agentConfig';

export const AGENT_KILL_GRACE_MS = 1500;

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AgentProcessOptions {
  config: AcpAgentConfig;
  /** Used when the config names no cwd. */
  defaultCwd: string;
  onStderrLine: (line: string) => void;
  baseEnv?: NodeJS.ProcessEnv;
}

export class AgentProcess {
  readonly pid: number | undefined;
  readonly exited: Promise<AgentExit>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stdin: WritableStream<Uint8Array>;
  private readonly child: ChildProcess;
  private exitInfo: AgentExit | undefined;
  private killing: Promise<void> | undefined;

  constructor(opts: AgentProcessOptions) {
    const { config } = opts;
    this.child = spawn(config.command, config.args ?? [], {
      cwd: config.cwd ?? opts.defaultCwd,
      env: { ...(opts.baseEnv ?? process.env), ...config.env },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.pid = this.child.pid;
    this.exited = new Promise<AgentExit>((resolve) => {
      this.child.once('error', (err) => {
        opts.onStderrLine(`spawn ${config.command}: ${err.message}`);
        this.exitInfo ??= { code: 127, signal: null };
        resolve(this.exitInfo);
      });
      this.child.once('exit', (code, signal) => {
        this.exitInfo ??= { code, signal };
        resolve(this.exitInfo);
      });
    });
    // A write after the agent died fails the write's promise; without a listener it would also crash the host.
    this.child.stdin?.on('error', () => undefined);
    this.stdout = readableOf(this.child);
    this.stdin = writableOf(this.child);
    let pending = '';
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (text: string) => {
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) opts.onStderrLine(line);
    });
    this.child.stderr?.on('end', () => {
      if (pending) opts.onStderrLine(pending);
    });
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** TERM to the group, KILL after the grace; then KILL again for stragglers that ignored TERM. */
  kill(): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return Promise.resolve();
    this.killing ??= (async () => {
      signalGroup(pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, AGENT_KILL_GRACE_MS);
      });
      await Promise.race([this.exited, grace]);
      clearTimeout(timer);
      signalGroup(pid, 'SIGKILL');
      this.child.stdin?.destroy();
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
    })();
    return this.killing;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already empty
  }
}

function readableOf(child: ChildProcess): ReadableStream<Uint8Array> {
  const out = child.stdout;
  // Once the reader cancelled (the SDK closing the connection), late pipe events must not touch the controller.
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (!out) return controller.close();
      const close = () => {
        if (done) return;
        done = true;
        controller.close();
      };
      out.on('data', (chunk: Buffer) => {
        if (!done) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      out.once('end', close);
      out.once('close', close);
    },
    cancel() {
      done = true;
      out?.destroy();
    },
  });
}

function writableOf(child: ChildProcess): WritableStream<Uint8Array> {
  const input = child.stdin;
  return new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise<void>((resolve, reject) => {
        if (!input || input.destroyed) return reject(new Error('agent stdin is closed'));
        input.write(chunk, (err) => (err ? reject(err) : resolve()));
      });
    },
    close() {
      input?.end();
    },
    abort() {
      input?.destroy();
    },
  });
}
