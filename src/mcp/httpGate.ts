// Who may talk to the HTTP MCP server, decided before any MCP handling: the request must name a
// loopback Host and (when a browser sends one) a loopback Origin, so a web page cannot reach the
// server through DNS rebinding; and it must carry this install's bearer token.
import { timingSafeEqual } from 'node:crypto';

export const MCP_PATH = '/mcp';

export interface GateRequest {
  url?: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface GateRefusal {
  status: 401 | 403 | 404;
  message: string;
}

export const GATE_MESSAGES = {
  notFound: (path: string) => `Not found: ${path} (the MCP endpoint is ${MCP_PATH})`,
  badHost: (host: string) => `Forbidden: Host ${host || '(none)'} is not a loopback address`,
  badOrigin: (origin: string) => `Forbidden: Origin ${origin} is not a loopback address`,
  noToken: 'Unauthorized: send the Agent Bash MCP token as "Authorization: Bearer <token>" (Agent Bash: Copy MCP Configuration)',
  badToken: 'Unauthorized: the bearer token is wrong (it may have been rotated; copy the configuration again)',
} as const;

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function header(req: GateRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `127.0.0.1:8123`, `localhost`, `[::1]:80` → true; anything else (or a malformed value) → false. */
export function isLoopbackHost(host: string): boolean {
  try {
    return LOOPBACK_NAMES.has(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}

export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
  } catch {
    return false;
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Undefined when the request may proceed; otherwise the status and the exact message to answer. */
export function checkMcpRequest(req: GateRequest, token: string): GateRefusal | undefined {
  const path = (req.url ?? '').split('?')[0];
  if (path !== MCP_PATH) return { status: 404, message: GATE_MESSAGES.notFound(path) };
  const host = header(req, 'host') ?? '';
  if (!isLoopbackHost(host)) return { status: 403, message: GATE_MESSAGES.badHost(host) };
  const origin = header(req, 'origin');
  if (origin !== undefined && !isLoopbackOrigin(origin)) return { status: 403, message: GATE_MESSAGES.badOrigin(origin) };
  const auth = header(req, 'authorization');
  const match = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  if (!match) return { status: 401, message: GATE_MESSAGES.noToken };
  if (!token || !sameSecret(match[1], token)) return { status: 401, message: GATE_MESSAGES.badToken };
  return undefined;
}
