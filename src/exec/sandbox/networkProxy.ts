// The sandbox's only way out: a small HTTP proxy on a unix socket (reached from inside through
// socat, see bwrapArgs.ts). `CONNECT host:port` (HTTPS, anything tunnelled) and absolute-URI
// requests (`GET http://host/…`, plain HTTP) go through when the host is listed; everything else is
// answered 403 and reported, so the result can name the refused host.
import * as net from 'node:net';
import { hostAllowed } from './sandboxPolicy';

/** Longest request head we read before giving up on a client (no legitimate one comes close). */
const MAX_HEAD_BYTES = 64 * 1024;
/** Refusals the proxy itself remembers (newest kept). */
const MAX_REFUSALS_KEPT = 1000;

export interface Refusal {
  host: string;
  port: number;
}

export function refusedBody(host: string): string {
  return `Agent Bash sandbox: network access to ${host} is not allowed (agentBash.sandbox.network.allowedDomains)\n`;
}

/** Parses `host:port`, `[v6]:port` or a bare host (then `defaultPort`). */
export function splitHostPort(text: string, defaultPort: number): Refusal | undefined {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (v6) return { host: v6[1], port: v6[2] ? Number(v6[2]) : defaultPort };
  const m = /^([^:\s/]+)(?::(\d+))?$/.exec(text);
  if (!m) return undefined;
  return { host: m[1], port: m[2] ? Number(m[2]) : defaultPort };
}

/**
 * The user name of a request's `Proxy-Authorization: Basic …` header: the token a shared proxy tells
 * its commands apart by (their proxy URL is `http://TOKEN@127.0.0.1:PORT`).
 */
export function proxyToken(head: string): string | undefined {
  const m = /\r\nproxy-authorization:\s*basic\s+([A-Za-z0-9+/=]+)\s*\r\n/i.exec(head);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const user = decoded.split(':')[0];
  return user || undefined;
}

export class NetworkProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  readonly refusals: Refusal[] = [];

  /**
   * Starts listening on `socketPath` at once (the bind is synchronous, so the sandbox may connect
   * right after this returns). `allowed` is read per request; `onRefused` hears each refusal.
   */
  constructor(
    readonly socketPath: string,
    private readonly allowed: () => readonly string[],
    private readonly onRefused?: (r: Refusal, token: string | undefined) => void,
  ) {
    this.server = net.createServer((client) => this.handle(client));
    this.server.on('error', () => undefined);
    this.server.listen(socketPath);
  }

  private handle(client: net.Socket): void {
    this.track(client);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) client.destroy();
        return;
      }
      client.off('data', onData);
      client.pause();
      this.route(client, head.subarray(0, end + 4), head.subarray(end + 4));
    };
    client.on('data', onData);
  }

  private route(client: net.Socket, head: Buffer, rest: Buffer): void {
    const text = head.toString('latin1');
    const firstLine = text.slice(0, text.indexOf('\r\n'));
    const [method, target, version] = firstLine.split(' ');
    if (method === 'CONNECT') {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the request line comes from the client: it may have no target
      const to = splitHostPort(target ?? '', 443);
      if (!to) return this.reply(client, 400, 'Bad Request', 'bad CONNECT target\n');
      if (!this.permit(to, text)) return this.reply(client, 403, 'Forbidden', refusedBody(to.host));
      const upstream = this.dial(client, to, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length) upstream.write(rest);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      return;
    }
    let url: URL;
    try {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the request line comes from the client: it may have no target
      url = new URL(target ?? '');
    } catch {
      return this.reply(client, 400, 'Bad Request', 'only absolute http:// URLs and CONNECT are proxied\n');
    }
    if (url.protocol !== 'http:') return this.reply(client, 400, 'Bad Request', `unsupported scheme ${url.protocol}\n`);
    const to = { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : 80 };
    if (!this.permit(to, text)) return this.reply(client, 403, 'Forbidden', refusedBody(to.host));
    // One request per connection: a kept-alive connection could otherwise carry a second request to
    // another host past the check.
    const headers = text
      .slice(firstLine.length + 2, -4)
      .split('\r\n')
      .filter((line) => line && !/^(proxy-)?connection:|^proxy-authorization:/i.test(line));
    const forwarded = [`${method} ${url.pathname}${url.search} ${version}`, ...headers, 'Connection: close', '', ''].join('\r\n');
    const upstream = this.dial(client, to, () => {
      upstream.write(forwarded);
      if (rest.length) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }

  private permit(to: Refusal, head: string): boolean {
    if (hostAllowed(to.host, this.allowed())) return true;
    // Bounded: a shared proxy lives as long as the editor; its callers keep their own lists.
    if (this.refusals.length >= MAX_REFUSALS_KEPT) this.refusals.shift();
    this.refusals.push(to);
    this.onRefused?.(to, proxyToken(head));
    return false;
  }

  private dial(client: net.Socket, to: Refusal, onConnect: () => void): net.Socket {
    const upstream = net.connect({ host: to.host, port: to.port }, onConnect);
    this.track(upstream);
    upstream.on('error', (err) => {
      if (!client.destroyed && client.bytesWritten === 0) this.reply(client, 502, 'Bad Gateway', `${err.message}\n`);
      else client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    return upstream;
  }

  private reply(client: net.Socket, code: number, status: string, body: string): void {
    client.end(`HTTP/1.1 ${code} ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => this.sockets.delete(socket));
  }

  /** Stops listening and cuts every open connection. */
  close(): void {
    this.server.close();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }
}
