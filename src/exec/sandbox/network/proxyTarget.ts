// What the sandbox's proxy (networkProxy.ts) is asked to reach, parsed once and strictly, and the
// allow list it is compared with. One parser decides both what is checked and what is dialled: a
// target is either rejected here with a reason, or it becomes a canonical host (lower case, no
// trailing dot, punycode; IPv4 only in dotted decimal, IPv6 only bracketed and compressed) and a port
// in 1–65535. Nothing a client sends reaches `net.connect` or the resolver unparsed.
import { isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';

export type HostKind = 'name' | 'ipv4' | 'ipv6';

export interface Target {
  /** Canonical: `example.com`, `127.0.0.1`, `::1` (no brackets). */
  host: string;
  kind: HostKind;
  port: number;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; why: string };

const fail = (why: string): { ok: false; why: string } => ({ ok: false, why });

/** Ports plain HTTP and HTTPS use: what an allow entry without a port opens. */
export const DEFAULT_PORTS: readonly number[] = [80, 443];

const LONGEST_NAME = 253;
const LABEL = /^(?:[a-z0-9_]|[a-z0-9_][a-z0-9_-]{0,61}[a-z0-9_])$/;
// The WHATWG host parser reads a name whose last label is a number (decimal, octal `0…`, hex `0x…`)
// as an IPv4 address in one of many spellings: only the one canonical spelling is accepted.
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/;
const DOTTED_DECIMAL = /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;

/** `text` with every byte outside printable ASCII written `\xNN`, cut to `max` characters. */
export function printable(text: string, max = 80): string {
  let out = '';
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    out += code > 0x20 && code < 0x7f && ch !== '\\' ? ch : `\\x${code.toString(16).padStart(2, '0')}`;
    if (out.length >= max) return `${out.slice(0, max)}…`;
  }
  return out;
}

/** A port as written: digits only, 1–65535. */
export function parsePort(text: string): Parsed<number> {
  if (!/^[0-9]{1,5}$/.test(text)) return fail(`bad port "${printable(text)}" (digits only, 1-65535)`);
  const port = Number(text);
  if (port < 1 || port > 65535 || text.startsWith('0')) return fail(`bad port "${printable(text)}" (1-65535, no leading zero)`);
  return { ok: true, value: port };
}

/**
 * A host as a request names it (brackets included for IPv6), canonical or rejected. `unicode`:
 * allow non-ASCII names (allow entries typed by the user); a request carries punycode only.
 */
export function canonicalHost(raw: string, unicode = false): Parsed<{ host: string; kind: HostKind }> {
  if (raw === '') return fail('empty host');
  if (raw.startsWith('[')) {
    if (!raw.endsWith(']')) return fail(`bad IPv6 literal "${printable(raw)}"`);
    const inner = raw.slice(1, -1);
    // A zone (`%eth0`) names a host interface: never part of a target.
    if (inner.includes('%') || !isIPv6(inner)) return fail(`bad IPv6 literal "${printable(raw)}"`);
    const host = compressIPv6(inner);
    if (host === undefined) return fail(`bad IPv6 literal "${printable(raw)}"`);
    return { ok: true, value: { host, kind: 'ipv6' } };
  }
  // Control bytes, spaces, percent-encoding, userinfo, paths, ports and anything else a URL or a
  // resolver would read differently from us.
  for (const ch of raw) {
    const code = ch.charCodeAt(0);
    if (code <= 0x20 || code === 0x7f) return fail(`control byte or space in host "${printable(raw)}"`);
    if (code > 0x7f && !unicode) return fail(`non-ASCII host "${printable(raw)}" (send punycode)`);
    if (code < 0x7f && !/[a-zA-Z0-9._-]/.test(ch)) return fail(`character "${printable(ch)}" not allowed in host "${printable(raw)}"`);
  }
  let host = raw.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '' || host.endsWith('.') || host.startsWith('.') || host.includes('..')) return fail(`empty label in host "${printable(raw)}"`);
  const labels = host.split('.');
  if (NUMERIC_LABEL.test(labels[labels.length - 1])) {
    if (raw.endsWith('.') || !DOTTED_DECIMAL.test(host)) return fail(`"${printable(raw)}" is not an IPv4 address in dotted decimal`);
    return { ok: true, value: { host, kind: 'ipv4' } };
  }
  const ascii = domainToASCII(host);
  if (ascii === '' || (!unicode && ascii !== host)) return fail(`"${printable(raw)}" is not a valid host name`);
  if (ascii.length > LONGEST_NAME || !ascii.split('.').every((l) => LABEL.test(l))) return fail(`"${printable(raw)}" is not a valid host name`);
  if (NUMERIC_LABEL.test(ascii.split('.').at(-1) ?? '')) return fail(`"${printable(raw)}" is not a valid host name`);
  return { ok: true, value: { host: ascii, kind: 'name' } };
}

/** The WHATWG (compressed, lower-case) spelling of an IPv6 address, or undefined. */
function compressIPv6(address: string): string | undefined {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** `host:port` or `[v6]:port`, the port required (CONNECT's authority form). */
export function parseAuthority(text: string, defaultPort?: number): Parsed<Target> {
  let hostPart: string;
  let portPart: string | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return fail(`bad IPv6 literal in "${printable(text)}"`);
    hostPart = text.slice(0, close + 1);
    const tail = text.slice(close + 1);
    if (tail !== '' && !tail.startsWith(':')) return fail(`junk after IPv6 literal in "${printable(text)}"`);
    portPart = tail === '' ? undefined : tail.slice(1);
  } else {
    const colons = text.split(':').length - 1;
    if (colons > 1) return fail(`IPv6 literal without brackets or extra colon in "${printable(text)}"`);
    const at = text.indexOf(':');
    hostPart = at < 0 ? text : text.slice(0, at);
    portPart = at < 0 ? undefined : text.slice(at + 1);
  }
  let port: number;
  if (portPart === undefined) {
    if (defaultPort === undefined) return fail(`no port in "${printable(text)}"`);
    port = defaultPort;
  } else {
    const p = parsePort(portPart);
    if (!p.ok) return p;
    port = p.value;
  }
  const h = canonicalHost(hostPart);
  if (!h.ok) return h;
  return { ok: true, value: { ...h.value, port } };
}

export interface AbsoluteUrl extends Target {
  /** Path and query as sent (`/` when the URL had none). */
  path: string;
}

/** `http://host[:port]/path?query` (absolute form of a plain-HTTP proxy request). */
export function parseAbsoluteUrl(text: string): Parsed<AbsoluteUrl> {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/.exec(text);
  if (!m) return fail(`not an absolute http:// URL: "${printable(text)}"`);
  if (m[1].toLowerCase() !== 'http') return fail(`unsupported scheme "${printable(m[1])}" (HTTPS goes through CONNECT)`);
  if (m[2].includes('@')) return fail(`user information in URL "${printable(text)}"`);
  const to = parseAuthority(m[2], 80);
  if (!to.ok) return to;
  const rest = m[3];
  if (rest.includes('#')) return fail(`fragment in request URL "${printable(text)}"`);
  if (!/^[\x21-\x7e]*$/.test(rest)) return fail(`control byte or space in request URL "${printable(text)}"`);
  if (rest !== '' && !rest.startsWith('/') && !rest.startsWith('?')) return fail(`bad path in "${printable(text)}"`);
  const path = rest === '' ? '/' : rest.startsWith('?') ? `/${rest}` : rest;
  return { ok: true, value: { ...to.value, path } };
}

export interface AllowEntry {
  /** Canonical host; for `*.example.com` the suffix `example.com`. */
  host: string;
  kind: HostKind | 'wildcard';
  /** The one port the entry opens; absent: DEFAULT_PORTS. */
  port?: number;
}

/**
 * One `agentBash.sandbox.network.allowedDomains` entry: `example.com`, `*.example.com`, an address
 * (`10.0.0.5`, `::1`, `[::1]`), each optionally with `:port` (IPv6 bracketed then). Unicode names
 * are compared in punycode.
 */
export function parseAllowEntry(entry: string): Parsed<AllowEntry> {
  const text = entry.trim();
  if (isIPv6(text)) return parseAllowEntry(`[${text}]`);
  const wildcard = text.startsWith('*.');
  const body = wildcard ? text.slice(2) : text;
  let hostPart = body;
  let port: number | undefined;
  const at = body.startsWith('[') ? body.indexOf(']:') + 1 : body.lastIndexOf(':');
  if (at > 0) {
    const p = parsePort(body.slice(at + 1));
    if (!p.ok) return p;
    port = p.value;
    hostPart = body.slice(0, at);
  }
  const h = canonicalHost(hostPart, true);
  if (!h.ok) return h;
  if (wildcard && h.value.kind !== 'name') return fail(`a wildcard needs a name, not an address: "${printable(entry)}"`);
  return { ok: true, value: { host: h.value.host, kind: wildcard ? 'wildcard' : h.value.kind, port } };
}

function hostMatches(entry: AllowEntry, host: string, kind: HostKind): boolean {
  if (entry.kind === 'wildcard') return kind === 'name' && host.endsWith(`.${entry.host}`);
  return entry.kind === kind && entry.host === host;
}

function portMatches(entry: AllowEntry, port: number): boolean {
  return entry.port === undefined ? DEFAULT_PORTS.includes(port) : entry.port === port;
}

/** Entries of the list that parse (the others open nothing). */
export function parseAllowList(list: readonly string[]): AllowEntry[] {
  const out: AllowEntry[] = [];
  for (const entry of list) {
    const e = parseAllowEntry(entry);
    if (e.ok) out.push(e.value);
  }
  return out;
}

/** Undefined when `to` is allowed by host and port; otherwise why not. */
export function allowListRefusal(to: Target, entries: readonly AllowEntry[]): string | undefined {
  const byHost = entries.filter((e) => hostMatches(e, to.host, to.kind));
  if (!byHost.length) return 'not in agentBash.sandbox.network.allowedDomains';
  if (byHost.some((e) => portMatches(e, to.port))) return undefined;
  const named = byHost.map((e) => e.port).filter((p): p is number => p !== undefined);
  const open = byHost.some((e) => e.port === undefined) ? [...DEFAULT_PORTS, ...named] : named;
  return `port ${to.port} is not allowed for this host (allowed: ${[...new Set(open)].join(', ')}; list it as host:${to.port})`;
}

/** True when an entry names exactly this address (and the port): it may then be private. */
export function literalAllowed(address: string, kind: 'ipv4' | 'ipv6', port: number, entries: readonly AllowEntry[]): boolean {
  return entries.some((e) => e.kind === kind && e.host === address && portMatches(e, port));
}

/** The host as a URL writes it: IPv6 in brackets. */
export function displayHost(host: string, kind: HostKind): string {
  return kind === 'ipv6' ? `[${host}]` : host;
}
