// Room vscode/mcp/: hosting the MCP server inside the extension.
// The MCP server inside the extension: started and stopped by `agentBash.mcp.enabled`/`mcp.port`,
// its bearer token kept in SecretStorage (rotatable), a status-bar item while it listens, the Copy
// MCP Configuration and Rotate MCP Token commands, and registration with VS Code's own MCP support
// where the running editor has it (the pinned @types/vscode predates that API, so it is
// feature-detected and typed locally).
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { ArtifactStore, CallerInfo, JobManager, PolicyRule, ToolResult, UpdateListener } from '../../core/contracts';
import { createBashMcpServer } from '../../mcp/bashMcpServer';
import { mcpClientConfig, mcpUrl } from '../../mcp/clientConfig';
import { writeStdioLauncher } from '../../mcp/stdioLauncher';
import { McpHttpServer } from '../../mcp/httpServer';
import { McpCallerSession } from '../../mcp/mcpSession';
import type { McpBackend } from '../../mcp/mcpTools';
import type { McpSettings } from '../settings/settings';

export const MCP_TOKEN_SECRET = 'agentBash.mcp.token';
export const COPY_MCP_CONFIG_COMMAND = 'agentBash.copyMcpConfig';
export const ROTATE_MCP_TOKEN_COMMAND = 'agentBash.rotateMcpToken';
/** Must match `contributes.mcpServerDefinitionProviders[].id`. */
export const MCP_PROVIDER_ID = 'agentBash.mcp';

export const MCP_HOST_MESSAGES = {
  notRunning: 'The Agent Bash MCP server is off. Turn on the setting agentBash.mcp.enabled first.',
  openSetting: 'Open Setting',
  copied: (port: number) => `Agent Bash MCP configuration (port ${port}, with its token) copied to the clipboard.`,
  rotated: 'Agent Bash MCP token rotated: clients using the old one get 401 until you copy the configuration again.',
  startFailed: (port: number, why: string) => `Agent Bash MCP server could not listen on 127.0.0.1:${port}: ${why}`,
  moved: (from: number, to: number) =>
    `The Agent Bash MCP port ${from} was taken, so the server now listens on ${to}: copy the MCP configuration again for your clients.`,
  copyConfig: 'Copy MCP Configuration',
} as const;

/** Where the port chosen for `agentBash.mcp.port` 0 is kept, so clients keep working across reloads. */
export const MCP_PORT_STATE_KEY = 'agentBash.mcp.port';
/** How long the remembered port is waited for when in use (a reloading window's old host may hold it). */
const REMEMBERED_PORT_WAIT_MS = 5000;

export interface McpHostDeps {
  context: vscode.ExtensionContext;
  run(input: unknown, opts: { signal: AbortSignal; onUpdate?: UpdateListener; caller: CallerInfo; backgroundAfterMs?: number }): Promise<ToolResult>;
  jobs: JobManager;
  artifacts: ArtifactStore;
  asyncEnabled(): boolean;
  settings(): McpSettings;
  log: vscode.LogOutputChannel;
  cliPath: string;
  /** The user-level rules, exported for the stdio launcher. */
  userRules(): PolicyRule[];
}

/** The part of VS Code's MCP API (1.101+) used here. */
interface McpApi {
  registerMcpServerDefinitionProvider(
    id: string,
    provider: { onDidChangeMcpServerDefinitions: vscode.Event<void>; provideMcpServerDefinitions(): unknown[] },
  ): vscode.Disposable;
}
type McpHttpDefinitionCtor = new (label: string, uri: vscode.Uri, headers?: Record<string, string>, version?: string) => unknown;

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export class McpHost implements vscode.Disposable {
  private server: McpHttpServer | undefined;
  private token = '';
  private applying: Promise<void> = Promise.resolve();
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 99);
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly backend: McpBackend;
  private disposed = false;

  constructor(private readonly deps: McpHostDeps) {
    this.backend = {
      run: (input, opts) => deps.run(input, opts),
      jobs: deps.jobs,
      artifacts: deps.artifacts,
      asyncEnabled: () => deps.asyncEnabled(),
      maxResultChars: () => deps.settings().maxResultChars,
    };
    this.status.command = COPY_MCP_CONFIG_COMMAND;
    this.disposables.push(
      this.status,
      this.changed,
      vscode.commands.registerCommand(COPY_MCP_CONFIG_COMMAND, () => this.copyConfig()),
      vscode.commands.registerCommand(ROTATE_MCP_TOKEN_COMMAND, () => this.rotateToken()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('agentBash.mcp')) void this.apply();
        if (e.affectsConfiguration('agentBash.patterns')) this.refreshLauncher();
      }),
    );
    this.registerProvider();
    // Off activation's path: two small files, needed only by a client started later.
    const timer = setImmediate(() => this.refreshLauncher());
    this.disposables.push({ dispose: () => clearImmediate(timer) });
  }

  /** Keeps a launcher a client already uses pointing at this version with today's rules. */
  private refreshLauncher(): void {
    try {
      this.writeLauncher();
    } catch (err) {
      this.deps.log.warn(`MCP stdio launcher not written: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The port it listens on, or undefined when off. */
  get port(): number | undefined {
    return this.server?.port;
  }

  /** The MCP sessions open now. */
  get sessionIds(): string[] {
    return this.server?.sessionIds ?? [];
  }

  get currentToken(): string {
    return this.token;
  }

  /** Follows the settings (start, stop, or move to another port); calls are serialised. */
  apply(): Promise<void> {
    this.applying = this.applying.then(() => this.applyNow()).catch((err: unknown) => this.deps.log.error(`MCP server: ${String(err)}`));
    return this.applying;
  }

  async copyConfig(): Promise<void> {
    await this.applying;
    const port = this.port;
    if (port === undefined) {
      const pick = await vscode.window.showInformationMessage(MCP_HOST_MESSAGES.notRunning, MCP_HOST_MESSAGES.openSetting);
      if (pick) await vscode.commands.executeCommand('workbench.action.openSettings', 'agentBash.mcp.enabled');
      return;
    }
    await vscode.env.clipboard.writeText(mcpClientConfig({ port, token: this.token, launcher: this.writeLauncher() }));
    void vscode.window.showInformationMessage(MCP_HOST_MESSAGES.copied(port));
  }

  /**
   * The stdio launcher in global storage, rewritten for this version and the current user rules (at
   * activation, when the rules change, and before the configuration is copied).
   */
  writeLauncher(): string {
    return writeStdioLauncher({ dir: this.deps.context.globalStorageUri.fsPath, cliPath: this.deps.cliPath, userRules: this.deps.userRules() });
  }

  async rotateToken(): Promise<void> {
    this.token = newToken();
    await this.deps.context.secrets.store(MCP_TOKEN_SECRET, this.token);
    this.changed.fire();
    this.deps.log.info('MCP token rotated');
    void vscode.window.showInformationMessage(MCP_HOST_MESSAGES.rotated);
  }

  dispose(): void {
    this.disposed = true;
    for (const d of this.disposables.splice(0)) d.dispose();
    void this.stop();
  }

  /** Ends every MCP session (killing what they started) and stops listening. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.status.hide();
    if (server) {
      await server.close();
      this.changed.fire();
      this.deps.log.info('MCP server stopped');
    }
  }

  private async applyNow(): Promise<void> {
    const { enabled, port: wanted } = this.deps.settings();
    if (!enabled) return this.stop();
    if (this.server && (wanted === 0 || this.server.port === wanted)) return;
    await this.stop();
    if (!this.token) this.token = (await this.deps.context.secrets.get(MCP_TOKEN_SECRET)) ?? '';
    if (!this.token) {
      this.token = newToken();
      await this.deps.context.secrets.store(MCP_TOKEN_SECRET, this.token);
    }
    const { version: given } = this.deps.context.extension.packageJSON as { version?: unknown };
    const version = typeof given === 'string' ? given : '0.0.0';
    // Port 0 means "any free port, chosen once": the one chosen before is tried first, so a reload
    // or a restart keeps every configured client working; it moves only when something else took it.
    const remembered = wanted === 0 ? this.deps.context.globalState.get<number>(MCP_PORT_STATE_KEY) : undefined;
    let server: McpHttpServer | undefined;
    let moved: number | undefined;
    try {
      try {
        server = await this.startHolding(remembered ?? wanted, version, remembered !== undefined);
      } catch (err) {
        if (remembered === undefined) throw err;
        moved = remembered;
        server = this.newServer(0, version);
        await server.start();
      }
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.deps.log.error(MCP_HOST_MESSAGES.startFailed(wanted, why));
      void vscode.window.showErrorMessage(MCP_HOST_MESSAGES.startFailed(wanted, why));
      await server?.close().catch(() => undefined);
      return;
    }
    // Disposed while it waited for the port: nothing may keep listening.
    if (this.disposed) {
      await server.close().catch(() => undefined);
      return;
    }
    if (wanted === 0) await this.deps.context.globalState.update(MCP_PORT_STATE_KEY, server.port);
    if (moved !== undefined) {
      this.deps.log.warn(MCP_HOST_MESSAGES.moved(moved, server.port));
      void vscode.window.showWarningMessage(MCP_HOST_MESSAGES.moved(moved, server.port), MCP_HOST_MESSAGES.copyConfig).then((pick) => {
        if (pick) void this.copyConfig();
      });
    }
    this.server = server;
    this.status.text = `$(plug) MCP ${server.port}`;
    this.status.tooltip = `Agent Bash MCP server listening on ${mcpUrl(server.port)}. Click to copy the client configuration.`;
    this.status.show();
    this.changed.fire();
    this.deps.log.info(`MCP server listening on ${mcpUrl(server.port)}`);
  }

  /**
   * A server started on `port`. On the remembered port, a port in use is tried again for a few seconds
   * first: after a window reload the previous extension host may still hold it while it shuts down,
   * and moving then would break every configured client for nothing.
   */
  private async startHolding(port: number, version: string, remembered: boolean): Promise<McpHttpServer> {
    const deadline = Date.now() + (remembered ? REMEMBERED_PORT_WAIT_MS : 0);
    for (;;) {
      const server = this.newServer(port, version);
      try {
        await server.start();
        return server;
      } catch (err) {
        await server.close().catch(() => undefined);
        const inUse = (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
        if (!inUse || Date.now() >= deadline || this.disposed) throw err;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  private newServer(port: number, version: string): McpHttpServer {
    return new McpHttpServer({
      port,
      token: () => this.token,
      createSession: (id) => {
        const session = new McpCallerSession(id, this.deps.jobs);
        return { server: createBashMcpServer(this.backend, session, version), session };
      },
      log: (message) => this.deps.log.info(message),
    });
  }

  private registerProvider(): void {
    const lm = vscode.lm as unknown as Partial<McpApi> | undefined;
    const Definition = (vscode as unknown as { McpHttpServerDefinition?: McpHttpDefinitionCtor }).McpHttpServerDefinition;
    if (!lm?.registerMcpServerDefinitionProvider || !Definition) return;
    this.disposables.push(
      lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
        onDidChangeMcpServerDefinitions: this.changed.event,
        provideMcpServerDefinitions: () => {
          const port = this.port;
          if (port === undefined) return [];
          return [new Definition('Agent Bash', vscode.Uri.parse(mcpUrl(port)), { Authorization: `Bearer ${this.token}` })];
        },
      }),
    );
  }
}
