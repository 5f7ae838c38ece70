// One connected ACP agent: its process, the SDK client connection, its session, and the hosts that
// answer its requests (terminals, permissions, files). Whatever ends it (disconnect, the agent exiting,
// its stdout closing) ends all of it: the process group is killed and every terminal it created is
// killed and released.
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type ClientConnection,
  type InitializeResponse,
  type SessionNotification,
  type StopReason,
} from '@agentclientprotocol/sdk';
import type { Approver, PolicyDecision, TerminalHandle } from '../core/contracts';
import type { AcpAgentConfig } from './agentConfig';
import { AgentProcess, type AgentExit } from './agentProcess';
import type { FsHostLike } from './fsHost';
import { PermissionHost, type PermissionAsker } from './permissionHost';
import { AcpTerminalHost, type TerminalBridgeLike, type TerminalHostDeps } from './terminalHost';

export const CLIENT_INFO = { name: 'agent-bash', title: 'Agent Bash', version: '0.1.0' } as const;
export const HANDSHAKE_TIMEOUT_MS = 30_000;
const STDERR_TAIL_LINES = 20;

export function agentExitedMessage(name: string, exit: AgentExit, stderrTail: string): string {
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return `ACP agent ${name} ${how}${stderrTail ? `: ${stderrTail}` : ''}`;
}
export function handshakeTimeoutMessage(name: string): string {
  return `ACP agent ${name} did not answer initialize/session/new within ${HANDSHAKE_TIMEOUT_MS / 1000} s`;
}
export const NOT_CONNECTED_MESSAGE = 'The ACP agent is not connected';

export interface AcpLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface AgentConnectionDeps {
  bridge: TerminalBridgeLike;
  /** The rules' decision on a command line, or undefined while no policy is loaded. */
  decide(command: string, cwd: string): PolicyDecision | undefined;
  approver: Approver;
  asker: PermissionAsker;
  /** Advertised (and served) only when given. */
  fs?: FsHostLike;
  log: AcpLog;
  workspaceCwd(): string;
  /** The environment the agent starts from (default: the extension host's). */
  processEnv?(): NodeJS.ProcessEnv;
  /** The OS sandbox `terminal/create` composes with the policy. */
  sandbox?: TerminalHostDeps['sandbox'];
  /** Reads what the sandbox refused from a command's output (see TerminalHostDeps). */
  sandboxRefusal?: TerminalHostDeps['sandboxRefusal'];
}

export interface PromptResult {
  stopReason: StopReason;
  /** The agent's message text streamed during this turn. */
  text: string;
}

export interface TerminalCreatedEvent {
  terminalId: string;
  handle: TerminalHandle;
  commandLine: string;
}

type Listener<T> = (value: T) => void;

let nextAgentNumber = 1;

export class AcpAgentConnection {
  readonly id: string;
  readonly name: string;
  readonly terminals: AcpTerminalHost;
  private readonly permissions: PermissionHost;
  private readonly proc: AgentProcess;
  private connection: ClientConnection | undefined;
  private session: string | undefined;
  private initialize: InitializeResponse | undefined;
  private turn = new AbortController();
  private turnText = '';
  private readonly stderrTail: string[] = [];
  private readonly updateListeners = new Set<Listener<SessionNotification>>();
  private readonly terminalListeners = new Set<Listener<TerminalCreatedEvent>>();
  private readonly closeListeners = new Set<Listener<string>>();
  private closing: Promise<void> | undefined;
  private closeReason: string | undefined;

  private constructor(
    private readonly config: AcpAgentConfig,
    private readonly deps: AgentConnectionDeps,
  ) {
    this.name = config.name;
    this.id = `acp:${config.name}#${nextAgentNumber++}`;
    this.terminals = new AcpTerminalHost({
      bridge: deps.bridge,
      decide: (command, cwd) => deps.decide(command, cwd),
      approver: deps.approver,
      owner: this.id,
      // Its commands share "AB: <name>"; the connection is the session.
      caller: { kind: 'acp', name: config.name, sessionId: this.id },
      defaultCwd: () => deps.workspaceCwd(),
      log: (m) => deps.log.info(`[${this.id}] ${m}`),
      ...(deps.sandbox ? { sandbox: deps.sandbox } : {}),
      ...(deps.sandboxRefusal ? { sandboxRefusal: deps.sandboxRefusal } : {}),
      // Called later, once the permission host (built just below) exists.
      alreadyAllowed: (line) => this.permissions.takeAllowedCommand(line),
      onCreated: (terminalId, handle, commandLine) => {
        for (const l of this.terminalListeners) l({ terminalId, handle, commandLine });
      },
    });
    this.permissions = new PermissionHost(config.name, deps.asker);
    this.proc = new AgentProcess({
      config,
      defaultCwd: deps.workspaceCwd(),
      ...(deps.processEnv ? { baseEnv: deps.processEnv() } : {}),
      onStderrLine: (line) => {
        this.stderrTail.push(line);
        if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
        deps.log.info(`[${this.id} stderr] ${line}`);
      },
    });
  }

  /** Launches the agent, runs `initialize` and `session/new`; on any failure nothing is left running. */
  static async connect(config: AcpAgentConfig, deps: AgentConnectionDeps): Promise<AcpAgentConnection> {
    const conn = new AcpAgentConnection(config, deps);
    try {
      await conn.handshake();
      return conn;
    } catch (err) {
      await conn.disconnect((err as Error).message);
      throw err;
    }
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }
  get sessionId(): string {
    if (!this.session) throw new Error(NOT_CONNECTED_MESSAGE);
    return this.session;
  }
  get agentInfo(): InitializeResponse['agentInfo'] {
    return this.initialize?.agentInfo;
  }
  get isConnected(): boolean {
    return this.closing === undefined;
  }
  /** Why the connection ended, once it has. */
  get closedReason(): string | undefined {
    return this.closeReason;
  }

  onUpdate(listener: Listener<SessionNotification>): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }
  onTerminalCreated(listener: Listener<TerminalCreatedEvent>): () => void {
    this.terminalListeners.add(listener);
    return () => this.terminalListeners.delete(listener);
  }
  onClosed(listener: Listener<string>): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  async prompt(text: string): Promise<PromptResult> {
    const connection = this.requireConnection();
    this.turn = new AbortController();
    this.turnText = '';
    const response = await connection.agent.request(methods.agent.session.prompt, {
      sessionId: this.sessionId,
      prompt: [{ type: 'text', text }],
    });
    return { stopReason: response.stopReason, text: this.turnText };
  }

  /** `session/cancel`: the agent stops the turn; pending permission questions answer `cancelled`. */
  async cancel(): Promise<void> {
    const connection = this.requireConnection();
    const turn = this.turn;
    // The agent hears of the cancel before the `cancelled` answers, so it knows why they came.
    try {
      await connection.agent.notify(methods.agent.session.cancel, { sessionId: this.sessionId });
    } finally {
      turn.abort();
    }
  }

  /** Idempotent. Kills the agent's process group and every terminal it created. */
  disconnect(reason = 'disconnected'): Promise<void> {
    this.closing ??= (async () => {
      this.closeReason = reason;
      this.turn.abort();
      this.deps.log.info(`[${this.id}] closing: ${reason}`);
      this.connection?.close(new Error(reason));
      await this.proc.kill();
      await this.terminals.releaseAll();
      for (const l of this.closeListeners) l(reason);
      this.updateListeners.clear();
      this.terminalListeners.clear();
      this.closeListeners.clear();
    })();
    return this.closing;
  }

  private requireConnection(): ClientConnection {
    if (!this.connection || this.closing) throw new Error(NOT_CONNECTED_MESSAGE);
    return this.connection;
  }

  private async handshake(): Promise<void> {
    const exited = this.proc.exited.then((exit) => {
      throw new Error(agentExitedMessage(this.name, exit, this.stderrTail.join('\n').trim()));
    });
    exited.catch(() => undefined);
    void this.proc.exited.then((exit) => this.disconnect(agentExitedMessage(this.name, exit, '')));

    const app = this.buildClient();
    const connection = app.connect(ndJsonStream(this.proc.stdin, this.proc.stdout));
    this.connection = connection;
    void connection.closed.then(
      () => this.disconnect('the agent closed the connection'),
      (err: unknown) => this.disconnect(`the connection failed: ${(err as Partial<Error> | null | undefined)?.message ?? String(err)}`),
    );

    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(handshakeTimeoutMessage(this.name))), HANDSHAKE_TIMEOUT_MS);
    });
    try {
      const steps = (async () => {
        this.initialize = await connection.agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: {
            fs: { readTextFile: this.deps.fs !== undefined, writeTextFile: this.deps.fs !== undefined },
            terminal: true,
          },
          clientInfo: { ...CLIENT_INFO },
        });
        const created = await connection.agent.request(methods.agent.session.new, {
          cwd: this.config.cwd ?? this.deps.workspaceCwd(),
          mcpServers: [],
        });
        this.session = created.sessionId;
      })();
      await Promise.race([steps, exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
    this.deps.log.info(
      `[${this.id}] connected to ${this.initialize?.agentInfo?.name ?? this.name} (pid ${this.pid}), session ${this.session}`,
    );
  }

  private checkSession(sessionId: string): void {
    if (sessionId !== this.session) throw RequestError.sessionNotFound(sessionId);
  }

  private buildClient() {
    const app = client({ name: CLIENT_INFO.name })
      .onNotification(methods.client.session.update, (ctx) => {
        const update = ctx.params.update;
        if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
          this.turnText += update.content.text;
        }
        for (const l of this.updateListeners) l(ctx.params);
      })
      .onRequest(methods.client.session.requestPermission, async (ctx) => {
        this.checkSession(ctx.params.sessionId);
        const signal = AbortSignal.any([ctx.signal, this.turn.signal]);
        const outcome = await this.permissions.request(ctx.params.toolCall, ctx.params.options, signal);
        return { outcome };
      })
      .onRequest(methods.client.terminal.create, async (ctx) => {
        this.checkSession(ctx.params.sessionId);
        const created = await this.terminals.create(ctx.params, ctx.signal);
        if (this.closing) {
          // Created while the agent was being disconnected: releaseAll has already run.
          await this.terminals.release(created.terminalId);
          throw new Error(NOT_CONNECTED_MESSAGE);
        }
        return created;
      })
      .onRequest(methods.client.terminal.output, async (ctx) => {
        this.checkSession(ctx.params.sessionId);
        const out = await this.terminals.output(ctx.params.terminalId);
        return { output: out.output, truncated: out.truncated, exitStatus: out.exitStatus };
      })
      .onRequest(methods.client.terminal.waitForExit, async (ctx) => {
        this.checkSession(ctx.params.sessionId);
        const status = await this.terminals.waitForExit(ctx.params.terminalId, ctx.signal);
        return { exitCode: status.exitCode, signal: status.signal };
      })
      .onRequest(methods.client.terminal.kill, async (ctx) => {
        this.checkSession(ctx.params.sessionId);
        await this.terminals.kill(ctx.params.terminalId);
        return {};
      })
      .onRequest(methods.client.terminal.release, async (ctx) => {
        this.checkSession(ctx.params.sessionId);
        await this.terminals.release(ctx.params.terminalId);
        return {};
      });
    const fs = this.deps.fs;
    if (fs) {
      app
        .onRequest(methods.client.fs.readTextFile, async (ctx) => {
          this.checkSession(ctx.params.sessionId);
          return { content: await fs.readTextFile(ctx.params.path, ctx.params.line, ctx.params.limit) };
        })
        .onRequest(methods.client.fs.writeTextFile, async (ctx) => {
          this.checkSession(ctx.params.sessionId);
          await fs.writeTextFile(ctx.params.path, ctx.params.content);
          return {};
        });
    }
    return app;
  }
}
