// The request head a client sends the sandbox's proxy, parsed strictly (HTTP/1.x, CRLF lines, no
// control bytes, no folded headers, at most one Host), and the head forwarded for plain HTTP: Host
// rewritten from the checked target, hop-by-hop and proxy headers removed, `Connection: close`.
import { displayHost, parseAbsoluteUrl, parseAuthority, printable, type AbsoluteUrl, type Parsed, type Target } from './proxyTarget';

export interface RequestHead {
  method: string;
  target: string;
  /** `1.0` or `1.1`. */
  version: string;
  headers: Array<[name: string, value: string]>;
}

export type ProxyRequest =
  | { kind: 'connect'; to: Target; head: RequestHead }
  | { kind: 'http'; to: AbsoluteUrl; head: RequestHead; forward: string };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_HEADERS = 200;
/** Headers that describe one hop (the client's connection to us), never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'upgrade']);

const fail = (why: string): { ok: false; why: string } => ({ ok: false, why });

/** `head` is everything up to and including the blank line, read as latin1. */
export function parseRequestHead(head: string): Parsed<RequestHead> {
  if (!head.endsWith('\r\n\r\n')) return fail('request head does not end with a blank line');
  const lines = head.slice(0, -4).split('\r\n');
  // Bare CR or LF, NUL and other control bytes (tab only inside header values).
  for (const line of lines) if (hasControlByte(line)) return fail(`control byte in request head: "${printable(line)}"`);
  const m = /^([^ ]+) ([^ ]+) HTTP\/1\.([01])$/.exec(lines[0]);
  if (!m || !TOKEN.test(m[1]) || !/^[\x21-\x7e]+$/.test(m[2])) return fail(`bad request line "${printable(lines[0])}"`);
  const headers: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    if (line.startsWith(' ') || line.startsWith('\t')) return fail('folded header line');
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon);
    if (!TOKEN.test(name)) return fail(`bad header line "${printable(line)}"`);
    headers.push([name, line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '')]);
  }
  if (headers.length > MAX_HEADERS) return fail(`more than ${MAX_HEADERS} headers`);
  return { ok: true, value: { method: m[1], target: m[2], version: `1.${m[3]}`, headers } };
}

function hasControlByte(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

function values(head: RequestHead, name: string): string[] {
  return head.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
}

/** The request as the proxy will carry it out, or why it is refused. */
export function parseProxyRequest(headText: string): Parsed<ProxyRequest> {
  const parsed = parseRequestHead(headText);
  if (!parsed.ok) return parsed;
  const head = parsed.value;
  if (head.method === 'CONNECT') {
    const to = parseAuthority(head.target);
    if (!to.ok) return fail(`bad CONNECT target: ${to.why}`);
    return { ok: true, value: { kind: 'connect', to: to.value, head } };
  }
  const url = parseAbsoluteUrl(head.target);
  if (!url.ok) return fail(url.why);
  const to = url.value;
  const hosts = values(head, 'host');
  if (hosts.length > 1) return fail('more than one Host header');
  if (hosts.length === 0 && head.version === '1.1') return fail('no Host header');
  if (hosts.length === 1) {
    const named = parseAuthority(hosts[0], 80);
    if (!named.ok || named.value.host !== to.host || named.value.kind !== to.kind || named.value.port !== to.port) {
      return fail(`the Host header "${printable(hosts[0])}" does not match the request target ${displayHost(to.host, to.kind)}:${to.port}`);
    }
  }
  const lengths = values(head, 'content-length');
  if (lengths.length && values(head, 'transfer-encoding').length) return fail('both Content-Length and Transfer-Encoding');
  if (new Set(lengths).size > 1 || lengths.some((l) => !/^[0-9]{1,15}$/.test(l))) return fail('bad Content-Length');
  // Headers the Connection header names are hop-by-hop too.
  const named = new Set(values(head, 'connection').flatMap((v) => v.split(',').map((s) => s.trim().toLowerCase())));
  const kept = head.headers.filter(([n]) => {
    const lower = n.toLowerCase();
    return lower !== 'host' && !HOP_BY_HOP.has(lower) && !named.has(lower);
  });
  const hostLine = `${displayHost(to.host, to.kind)}${to.port === 80 ? '' : `:${to.port}`}`;
  const forward = [`${head.method} ${to.path} HTTP/${head.version}`, `Host: ${hostLine}`, ...kept.map(([n, v]) => `${n}: ${v}`), 'Connection: close', '', ''].join('\r\n');
  return { ok: true, value: { kind: 'http', to, head, forward } };
}
