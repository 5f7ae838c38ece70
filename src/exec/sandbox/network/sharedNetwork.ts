// One network namespace for every sandboxed command of a runtime, made once. A long-lived holder
// (bubblewrap with its own network and PID namespaces, dying with us) runs the one socat that bridges
// the namespace's loopback port to the host proxy's unix socket; each command then enters that
// namespace (`nsenter --net`, plus `--user` where the holder needed a user namespace of its own)
// before bubblewrap confines it. That saves every command the start of a socat and the wait for it
// to listen (measured here: ~28 ms of the ~47 ms a sandboxed `true` took), and lets a server that one
// sandboxed command starts be reached by the next, as on a normal machine; the host's own loopback
// stays out of reach. Until the holder listens, or where it cannot start, commands fall back to a
// namespace and bridge of their own (bwrapArgs.ts), so nothing waits for it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { PROXY_PORT } from '../bwrapArgs';
import { networkStateLine } from '../launcher';

/** How long the holder may take to listen before we give up on it for this runtime. */
const READY_TIMEOUT_MS = 5000;
const POLL_MS = 5;

/** `127.0.0.1:PROXY_PORT` in LISTEN state, as /proc/<pid>/net/tcp writes it. */
const LISTEN_LINE = new RegExp(`^\\s*\\d+: 0100007F:${PROXY_PORT.toString(16).toUpperCase().padStart(4, '0')} \\S+ 0A `, 'm');

export interface SharedNetworkTools {
  bwrap: string;
  socat: string;
  nsenter: string;
}

type State = { kind: 'idle' } | { kind: 'starting' } | { kind: 'ready'; enter: string[] } | { kind: 'failed'; why: string };

export class SharedNetwork {
  private state: State = { kind: 'idle' };
  private holder: ChildProcess | undefined;
  private poll: NodeJS.Timeout | undefined;
  /** `ready()` callers waiting for the start to end one way or the other. */
  private waiters: Array<() => void> = [];

  constructor(
    private readonly tools: SharedNetworkTools,
    /** The host proxy's unix socket the holder's socat forwards to. */
    private readonly socketPath: string,
    /**
     * Where commands that start while the holder does wait for it (launcher.ts): written with the
     * `nsenter` options once it serves, `none` when it cannot, removed while it is not running.
     */
    private readonly stateFile?: string,
  ) {}

  /**
   * The `nsenter … --` argv that puts a process into the shared namespace (the command's argv goes
   * after it), or undefined while it does not listen yet (the first call starts it) or cannot start.
   */
  enterArgv(): string[] | undefined {
    if (this.state.kind === 'idle') this.start();
    return this.state.kind === 'ready' ? this.state.enter : undefined;
  }

  /** Why the shared namespace is not used, once it failed (for tests and the bench). */
  failure(): string | undefined {
    return this.state.kind === 'failed' ? this.state.why : undefined;
  }

  /** Resolves once the namespace listens (true) or cannot (false). */
  async ready(): Promise<boolean> {
    this.enterArgv();
    if (this.state.kind === 'starting') await new Promise<void>((r) => this.waiters.push(r));
    return this.state.kind === 'ready';
  }

  private settle(state: Exclude<State, { kind: 'starting' }>): void {
    this.state = state;
    this.writeState();
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The state file for launchers waiting on the start (atomic: a reader sees all of it or nothing). */
  private writeState(): void {
    if (!this.stateFile) return;
    try {
      if (this.state.kind === 'idle' || this.state.kind === 'starting') {
        rmSync(this.stateFile, { force: true });
        return;
      }
      const tmp = `${this.stateFile}.${process.pid}.tmp`;
      writeFileSync(tmp, networkStateLine(this.state.kind === 'ready' ? this.state.enter.slice(1, -1) : undefined));
      renameSync(tmp, this.stateFile);
    } catch {
      // The runtime's folder is gone (disposed): nobody waits any more.
    }
  }

  private start(): void {
    this.state = { kind: 'starting' };
    this.writeState();
    const { bwrap, socat, nsenter } = this.tools;
    const args = [
      '--ro-bind', '/', '/',
      // A user namespace of its own, root included: it owns the network namespace, and commands
      // enter both (`--user --preserve-credentials`) before bubblewrap nests theirs inside.
      '--unshare-user', '--unshare-net', '--unshare-pid', '--die-with-parent', '--cap-drop', 'ALL',
      '--info-fd', '3',
      '--', socat, `TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${this.socketPath}`,
    ];
    // No host environment: the holder needs none, and tokens have no business next to the sandbox.
    const holder = spawn(bwrap, args, { env: {}, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    this.holder = holder;
    // It serves while we run and dies with us (die-with-parent); it never keeps a host process alive.
    holder.unref();
    for (const stream of [holder.stderr, holder.stdio[3]]) (stream as { unref?: () => void } | null)?.unref?.();
    let info = '';
    let stderr = '';
    let childPid: number | undefined;
    const fail = (why: string): void => {
      if (this.state.kind === 'failed') return;
      this.stopPolling();
      this.settle({ kind: 'failed', why });
      if (holder.exitCode === null && holder.signalCode === null) holder.kill('SIGKILL');
    };
    holder.on('error', (err) => fail(err.message));
    holder.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    const infoStream = holder.stdio[3] as NodeJS.ReadableStream | null;
    infoStream?.on('data', (chunk: Buffer) => {
      info += chunk.toString('utf8');
      if (childPid !== undefined) return;
      const m = /"child-pid"\s*:\s*(\d+)/.exec(info);
      if (m) childPid = Number(m[1]);
    });
    infoStream?.on('error', () => undefined);
    holder.on('exit', (code, signal) => {
      this.stopPolling();
      this.holder = undefined;
      // A holder that dies after it served (killed from outside) is started again on the next call.
      if (this.state.kind === 'ready') this.settle({ kind: 'idle' });
      else fail(`the network holder exited (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n')[0] ?? ''}`);
    });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    this.poll = setInterval(() => {
      if (Date.now() > deadline) return fail('the network holder did not listen in time');
      if (childPid === undefined) return;
      let tcp: string;
      try {
        tcp = readFileSync(`/proc/${childPid}/net/tcp`, 'utf8');
      } catch {
        return;
      }
      if (!LISTEN_LINE.test(tcp)) return;
      this.stopPolling();
      const enter = ['--target', String(childPid)];
      // The holder's user namespace owns the network one: enter it too.
      if (namespaceOf('self', 'user') !== namespaceOf(String(childPid), 'user')) enter.push('--user', '--preserve-credentials');
      enter.push('--net', '--');
      this.settle({ kind: 'ready', enter: [nsenter, ...enter] });
    }, POLL_MS);
    this.poll.unref();
  }

  private stopPolling(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
  }

  /** Ends the holder (and with its PID namespace, every socat it forked). */
  dispose(): void {
    this.stopPolling();
    this.holder?.kill('SIGKILL');
    this.holder = undefined;
    this.settle({ kind: 'idle' });
  }
}

function namespaceOf(pid: string, kind: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/${kind}`);
  } catch {
    return undefined;
  }
}
