// Room exec/sandbox/network/: the sandbox's only way out (the filtering proxy, its parsers, the shared namespace).
// The sandbox's only way out: a small HTTP proxy on a unix socket (reached from inside through
// socat, see bwrapArgs.ts). `CONNECT host:port` (HTTPS, anything tunnelled) and absolute-URI
// requests (`GET http://host/…`, plain HTTP) go through when all of this holds:
//   - the request parses strictly (proxyRequest.ts, proxyTarget.ts): one canonical host and port;
//   - an allow entry names the host, and the port (80 and 443 unless the entry names another);
//   - every address the name resolves to is public, or named literally by an allow entry
//     (addressClass.ts) — and the connection goes to that checked address, not to the name again;
//   - for plain HTTP, the Host header names the same host and port (it is rewritten anyway).
// Anything else is answered (400, 403, 502) and reported with its reason, so the result can say
// why. Nothing a client sends can throw out of here: every socket has an error handler, every
// handler is caught, and the server outlives any client.
import { promises as dns } from 'node:dns';
import * as net from 'node:net';
import type { Refusal } from '../../../core/sandboxRefusals';
import { classifyAddress } from './addressClass';
import { parseProxyRequest, type ProxyRequest } from './proxyRequest';
import { allowListRefusal, displayHost, literalAllowed, parseAllowList, printable, type Target } from './proxyTarget';

/** Longest request head we read before giving up on a client (no legitimate one comes close). */
const MAX_HEAD_BYTES = 64 * 1024;
/** Refusals the proxy itself remembers (newest kept). */
const MAX_REFUSALS_KEPT = 1000;
/** A client that has not sent its whole request head by then is cut off. */
const HEAD_TIMEOUT_MS = 30_000;
/** A name that has not resolved by then is answered 502. */
const LOOKUP_TIMEOUT_MS = 15_000;
/** Connections served at once; more are closed at once (a command cannot starve the others). */
const MAX_CONNECTIONS = 512;
/** Addresses of one name tried in turn. */
const MAX_ADDRESSES_TRIED = 4;

export type { Refusal } from '../../../core/sandboxRefusals';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a name (the system resolver by default; tests inject their own). */
export type Lookup = (host: string) => Promise<ResolvedAddress[]>;

export interface ProxyOptions {
  lookup?: Lookup;
}

const systemLookup: Lookup = (host) => dns.lookup(host, { all: true, verbatim: true });

/** The body of a refusal answer (curl prints it for plain HTTP). */
export function refusedBody(r: Refusal): string {
  if (r.malformed) return `Agent Bash sandbox: a proxy request was refused: ${r.reason}\n`;
  return `Agent Bash sandbox: network access to ${r.host}:${r.port} was refused: ${r.reason}\n`;
}

/**
 * The user name of a request's `Proxy-Authorization: Basic …` header: the token a shared proxy tells
 * its commands apart by (their proxy URL is `http://TOKEN@127.0.0.1:PORT`).
 */
export function proxyToken(head: string): string | undefined {
  const m = /\r\nproxy-authorization:[ \t]*basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*\r\n/i.exec(head);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const user = decoded.split(':')[0];
  return user || undefined;
}

type Decision = { ok: true; addresses: ResolvedAddress[] } | { ok: false; status: 403 | 502; reason: string; report: boolean };

export class NetworkProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly lookup: Lookup;
  readonly refusals: Refusal[] = [];

  /**
   * Starts listening on `socketPath` at once (the bind is synchronous, so the sandbox may connect
   * right after this returns). `allowed` is read per request; `onRefused` hears each refusal.
   */
  constructor(
    readonly socketPath: string,
    private readonly allowed: () => readonly string[],
    private readonly onRefused?: (r: Refusal, token: string | undefined) => void,
    options: ProxyOptions = {},
  ) {
    this.lookup = options.lookup ?? systemLookup;
    // Half-open: a client that shuts down its sending side after the request (`printf … | nc -N`)
    // still gets the answer; one that does so before a whole request head is cut off.
    this.server = net.createServer({ allowHalfOpen: true }, (client) => {
      try {
        this.handle(client);
      } catch {
        client.destroy();
      }
    });
    this.server.maxConnections = MAX_CONNECTIONS;
    this.server.on('error', () => undefined);
    this.server.listen(socketPath);
  }

  private handle(client: net.Socket): void {
    this.track(client);
    client.setTimeout(HEAD_TIMEOUT_MS, () => client.destroy());
    let head = Buffer.alloc(0);
    let routed = false;
    client.once('end', () => {
      if (!routed) client.destroy();
    });
    const onData = (chunk: Buffer): void => {
      try {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0 || end + 4 > MAX_HEAD_BYTES) {
          if (head.length > MAX_HEAD_BYTES) {
            client.off('data', onData);
            this.reply(client, 431, 'Request Header Fields Too Large', 'request head too large\n');
          }
          return;
        }
        client.off('data', onData);
        client.pause();
        client.setTimeout(0);
        routed = true;
        this.route(client, head.subarray(0, end + 4).toString('latin1'), head.subarray(end + 4));
      } catch {
        client.destroy();
      }
    };
    client.on('data', onData);
  }

  private route(client: net.Socket, headText: string, rest: Buffer): void {
    const token = proxyToken(headText);
    const parsed = parseProxyRequest(headText);
    if (!parsed.ok) {
      const refusal: Refusal = { host: '', port: 0, reason: parsed.why, malformed: true };
      this.report(refusal, token);
      return this.reply(client, 400, 'Bad Request', refusedBody(refusal));
    }
    const request = parsed.value;
    const to = request.to;
    const shown = displayHost(to.host, to.kind);
    // Whatever fails from here on ends this client only (no rejection is left unhandled).
    this.decide(to)
      .then((decision) => {
        if (client.destroyed) return;
        if (!decision.ok) {
          const refusal: Refusal = { host: shown, port: to.port, reason: decision.reason };
          if (decision.report) this.report(refusal, token);
          const status = decision.status === 403 ? 'Forbidden' : 'Bad Gateway';
          return this.reply(client, decision.status, status, refusedBody(refusal));
        }
        this.dial(client, decision.addresses, to.port, request, rest);
      })
      .catch(() => client.destroy());
  }

  /** The allow list, then the addresses: what may be dialled, or why nothing may. */
  private async decide(to: Target): Promise<Decision> {
    const entries = parseAllowList(this.allowed());
    const notListed = allowListRefusal(to, entries);
    if (notListed) return { ok: false, status: 403, reason: notListed, report: true };
    if (to.kind !== 'name') return { ok: true, addresses: [{ address: to.host, family: to.kind === 'ipv4' ? 4 : 6 }] };
    let resolved: ResolvedAddress[];
    try {
      resolved = await withTimeout(this.lookup(to.host), LOOKUP_TIMEOUT_MS);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      return { ok: false, status: 502, reason: `the name does not resolve (${typeof code === 'string' ? code : 'lookup failed'})`, report: false };
    }
    if (!resolved.length) return { ok: false, status: 502, reason: 'the name does not resolve', report: false };
    for (const r of resolved) {
      const kind = net.isIPv4(r.address) ? 'ipv4' : net.isIPv6(r.address) ? 'ipv6' : undefined;
      const why = classifyAddress(r.address);
      if (why === undefined && kind) continue;
      if (kind && literalAllowed(canonicalAddress(r.address, kind), kind, to.port, entries)) continue;
      // One internal address is enough to refuse: the name points inside, whichever one we picked.
      const shownAddress = printable(r.address, 64);
      return { ok: false, status: 403, reason: `resolves to ${why ?? 'not an IP address'} (${shownAddress}); allow it by listing the address itself`, report: true };
    }
    // The family from the address itself (a resolver's word is not needed to dial a literal).
    return { ok: true, addresses: resolved.slice(0, MAX_ADDRESSES_TRIED).map((r) => ({ address: r.address, family: net.isIPv6(r.address) ? 6 : 4 })) };
  }

  /** Connects to the checked addresses in turn (never to the name), then relays both ways. */
  private dial(client: net.Socket, addresses: ResolvedAddress[], port: number, request: ProxyRequest, rest: Buffer): void {
    const [first, ...others] = addresses;
    let upstream: net.Socket;
    try {
      upstream = net.connect({ host: first.address, port, family: first.family === 6 ? 6 : 4 });
    } catch (err) {
      return this.reply(client, 502, 'Bad Gateway', `${(err as Error).message}\n`);
    }
    this.track(upstream);
    let connected = false;
    const cut = (): void => {
      upstream.destroy();
    };
    client.once('error', cut);
    client.once('close', cut);
    upstream.once('connect', () => {
      connected = true;
      try {
        if (request.kind === 'connect') client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        else upstream.write(request.forward, 'latin1');
        if (rest.length) upstream.write(rest);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      } catch {
        client.destroy();
        upstream.destroy();
      }
    });
    upstream.once('error', (err) => {
      if (connected || client.destroyed) return void client.destroy();
      client.off('error', cut);
      client.off('close', cut);
      if (others.length) return this.dial(client, others, port, request, rest);
      this.reply(client, 502, 'Bad Gateway', `Agent Bash sandbox: cannot connect: ${err.message}\n`);
    });
    // A clean end reaches the client through the pipe (its pending writes still go out); a reset cuts it.
    upstream.once('close', (hadError) => {
      if (connected && hadError) client.destroy();
    });
  }

  private report(refusal: Refusal, token: string | undefined): void {
    // Bounded: a shared proxy lives as long as the editor; its callers keep their own lists.
    if (this.refusals.length >= MAX_REFUSALS_KEPT) this.refusals.shift();
    this.refusals.push(refusal);
    try {
      this.onRefused?.(refusal, token);
    } catch {
      // A listener's failure is not the client's.
    }
  }

  private reply(client: net.Socket, code: number, status: string, body: string): void {
    if (client.destroyed) return;
    client.end(`HTTP/1.1 ${code} ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    // A client that never reads its answer does not hold the socket.
    client.setTimeout(HEAD_TIMEOUT_MS, () => client.destroy());
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

/** The spelling allow entries use for an address (IPv6 compressed, lower case). */
function canonicalAddress(address: string, kind: 'ipv4' | 'ipv6'): string {
  if (kind === 'ipv4') return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })), ms);
    timer.unref();
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
