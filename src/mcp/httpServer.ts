// The Streamable HTTP MCP endpoint on 127.0.0.1: the gate (loopback Host/Origin, bearer token), one
// transport + server + caller session per Mcp-Session-Id, and the end of a session by every road a
// client can leave: DELETE, a dropped connection under a running call, or silence (no request, no
// open stream, no running call) past the idle timeout. Whatever a session started is killed when it ends; `close()` ends them all.
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { checkMcpRequest } from './httpGate';
import type { McpCallerSession } from './mcpSession';

export const LOOPBACK_HOST = '127.0.0.1';
/** A session with no request and no running call for this long is closed (its client is gone). */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** Request bodies above this are refused (a tool call is a few KiB). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export const HTTP_MESSAGES = {
  sessionNotFound: 'Session not found (it ended or the server restarted): initialize a new session',
  needsSession: 'Bad request: send an initialize request first, or the Mcp-Session-Id header',
  badJson: 'Parse error: the request body is not JSON',
  tooLarge: `Request body larger than ${MAX_BODY_BYTES} bytes`,
} as const;

export interface McpHttpSession {
  server: Server;
  session: McpCallerSession;
}

export interface McpHttpServerOptions {
  /** 0: any free port. */
  port: number;
  /** The token in force now (rotation applies to the next request). */
  token(): string;
  /** A fresh MCP server and caller session for a new client session. */
  createSession(sessionId: string): McpHttpSession;
  idleTimeoutMs?: number;
  log?(message: string): void;
}

interface Live extends McpHttpSession {
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
  /** Open GET (server-to-client) streams: a client holding one is present even when silent. */
  openStreams: number;
}

function jsonError(res: http.ServerResponse, status: number, message: string, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: status === 404 ? -32001 : -32000, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', ...extraHeaders }).end(body);
}

/** JSON-RPC request ids in a POST body (one message or a batch). */
function requestIds(body: unknown): Array<string | number> {
  const messages = Array.isArray(body) ? body : [body];
  return messages
    .filter((m): m is { id: string | number; method: string } => !!m && typeof m === 'object' && 'method' in m && 'id' in m)
    .map((m) => m.id);
}

async function readJson(req: http.IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, message: HTTP_MESSAGES.tooLarge };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { ok: false, status: 400, message: HTTP_MESSAGES.badJson };
  }
}

export class McpHttpServer {
  private readonly http = http.createServer((req, res) => void this.handle(req, res));
  private readonly sessions = new Map<string, Live>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly opts: McpHttpServerOptions) {}

  /** Listens on 127.0.0.1 and returns the port. */
  async start(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.opts.port, LOOPBACK_HOST, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    const idle = this.opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.sweeper = setInterval(() => this.sweep(idle), Math.max(50, Math.min(idle / 2, 60_000)));
    this.sweeper.unref();
    return this.port;
  }

  get port(): number {
    return (this.http.address() as AddressInfo | null)?.port ?? 0;
  }

  get sessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  /** Ends every session (killing what they started) and stops listening. */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.allSettled([...this.sessions.keys()].map((id) => this.endSession(id, 'server stopped')));
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  async endSession(id: string, why: string): Promise<void> {
    const live = this.sessions.get(id);
    if (!live) return;
    this.sessions.delete(id);
    this.opts.log?.(`MCP session ${id} ended (${why})`);
    live.session.close(why);
    await Promise.allSettled([live.server.close(), live.transport.close()]);
  }

  private sweep(idleMs: number): void {
    const now = Date.now();
    for (const [id, live] of this.sessions) {
      if (live.session.busy === 0 && live.openStreams === 0 && now - live.lastSeen > idleMs) void this.endSession(id, 'idle');
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const refusal = checkMcpRequest(req, this.opts.token());
      if (refusal) {
        jsonError(res, refusal.status, refusal.message, refusal.status === 401 ? { 'www-authenticate': 'Bearer realm="agent-bash"' } : {});
        return;
      }
      let body: unknown;
      if (req.method === 'POST') {
        const parsed = await readJson(req);
        if (!parsed.ok) return jsonError(res, parsed.status, parsed.message);
        body = parsed.value;
      }
      const sid = req.headers['mcp-session-id'];
      const id = Array.isArray(sid) ? sid[0] : sid;
      if (id !== undefined) {
        const live = this.sessions.get(id);
        if (!live) return jsonError(res, 404, HTTP_MESSAGES.sessionNotFound);
        live.lastSeen = Date.now();
        // A long call's answer is also a sign of life: the idle clock restarts when it is sent.
        res.once('close', () => (live.lastSeen = Date.now()));
        this.abortOnDrop(res, live, body);
        if (req.method === 'GET') this.holdStream(res, live);
        await live.transport.handleRequest(req, res, body);
        if (req.method === 'DELETE') await this.endSession(id, 'closed by the client');
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(body)) return jsonError(res, 400, HTTP_MESSAGES.needsSession);
      await this.initialize(req, res, body);
    } catch (err) {
      this.opts.log?.(`MCP request failed: ${err instanceof Error ? err.message : String(err)}`);
      jsonError(res, 500, 'Internal server error');
    }
  }

  private async initialize(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    // The id is chosen here so the caller session (terminals, approvals) carries the MCP session id.
    const id = randomUUID();
    const created = this.opts.createSession(id);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        this.sessions.set(id, { ...created, transport, lastSeen: Date.now(), openStreams: 0 });
        this.opts.log?.(`MCP session ${id} started`);
      },
    });
    await created.server.connect(transport);
    await transport.handleRequest(req, res, body);
    // A refused initialize (bad protocol version…) never became a session: nothing to keep.
    if (!this.sessions.has(id)) {
      created.session.close();
      await Promise.allSettled([created.server.close()]);
    }
  }

  /** The idle clock starts when the client's last stream drops, not at its last request. */
  private holdStream(res: http.ServerResponse, live: Live): void {
    live.openStreams += 1;
    res.once('close', () => (live.openStreams -= 1));
  }

  /** A POST whose connection closes before its answer: its calls are abandoned, so kill them. */
  private abortOnDrop(res: http.ServerResponse, live: Live, body: unknown): void {
    const ids = requestIds(body);
    if (ids.length === 0) return;
    res.once('close', () => {
      if (!res.writableFinished) for (const rid of ids) live.session.abortRequest(rid);
    });
  }
}
