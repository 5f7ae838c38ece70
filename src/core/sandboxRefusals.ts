// What a sandboxed command was refused, read back from its output: the proxy's refusal lines name
// hosts and why each was refused; `Read-only file system` errors (coreutils, bash redirects, Node's
// EROFS, Python's Errno 30) name paths. The notice says what was refused and how to retry outside the sandbox; nothing retries
// on its own. The executors write the refusal lines and the pipeline reads them back, so both ends of
// that format live here, in core, where the pipeline may import them.

/** A request the sandbox's network proxy refused (the proxy in exec/sandbox/network/networkProxy.ts makes them). */
export interface Refusal {
  /** The host as the request named it (IPv6 in brackets); empty when the request did not parse. */
  host: string;
  port: number;
  /** Why: `not in agentBash.sandbox.network.allowedDomains`, `resolves to a loopback address (127.0.0.1)`… */
  reason: string;
  /** The request itself was malformed (no host to allow). */
  malformed?: boolean;
}

export interface Violations {
  paths: string[];
  hosts: string[];
  /** Why a host was refused, where it was not simply unlisted (`resolves to a loopback address…`). */
  reasons?: Record<string, string>;
}

/** The reason of a host that no allow entry names. */
export const NOT_LISTED = 'not in agentBash.sandbox.network.allowedDomains';

/** The line the executors write into a command's output when the proxy refuses a request. */
export function refusalLine(r: Refusal): string {
  if (r.malformed) return `[sandbox] a proxy request was refused: ${r.reason}\n`;
  return `[sandbox] network access to ${r.host}:${r.port} was refused: ${r.reason}\n`;
}

// The executors' line and the proxy's answer body (curl prints it for plain HTTP).
const REFUSAL = /(?:\[sandbox\]|Agent Bash sandbox:) network access to (\S+?):\d+ was refused: ([^\n]*)/g;
// Paths as the program printed them: absolute, or relative to wherever the command was then.
const QUOTED_PATH = /['‘"`]([^'’"`\n]+)['’"`]/g;
const BARE_PATH = /(?:^|\s)([^\s:'"‘’]+): [Rr]ead-only file system/g;

export function findViolations(output: string): Violations {
  const hosts = new Set<string>();
  const reasons = new Map<string, string>();
  for (const m of output.matchAll(REFUSAL)) {
    hosts.add(m[1]);
    const reason = m[2].trim();
    if (reason !== NOT_LISTED && !reasons.has(m[1])) reasons.set(m[1], reason);
  }
  const paths = new Set<string>();
  for (const line of output.split('\n')) {
    if (!/read-only file system|EROFS/i.test(line)) continue;
    const quoted = [...line.matchAll(QUOTED_PATH)].map((m) => m[1]);
    const found = quoted.length > 0 ? quoted : [...line.matchAll(BARE_PATH)].map((m) => m[1]);
    for (const p of found) paths.add(p);
  }
  return { paths: [...paths], hosts: [...hosts], ...(reasons.size ? { reasons: Object.fromEntries(reasons) } : {}) };
}

/** Said when a refused path is a repository's metadata. */
export const GIT_WRITE_HINT = 'git metadata (.git) is read-only unless agentBash.sandbox.git.allowWrite is on';

function isGitMetadata(p: string): boolean {
  return /(^|\/)\.git(\/|$)/.test(p);
}

export const SANDBOX_RETRY_HINT =
  'To run it outside the sandbox, call the tool again with "sandbox": "off" (the user is asked to approve it).';

/** The notice for a sandboxed run's result, or undefined when nothing was refused. */
export function violationNotice(v: Violations): string | undefined {
  const refused = refusalNotice(v);
  return refused === undefined ? undefined : `${refused} ${SANDBOX_RETRY_HINT}`;
}

/** What the sandbox refused, without the retry (each caller says how it retries). */
export function refusalNotice(v: Violations): string | undefined {
  const parts: string[] = [];
  if (v.paths.length) parts.push(`writing ${v.paths.join(', ')} (writable: the workspace folders, $TMPDIR, package caches, agentBash.sandbox.filesystem.allowWrite${v.paths.some(isGitMetadata) ? `; ${GIT_WRITE_HINT}` : ''})`);
  const reasonOf = (h: string): string | undefined => (v.reasons && Object.hasOwn(v.reasons, h) ? v.reasons[h] : undefined);
  const unlisted = v.hosts.filter((h) => reasonOf(h) === undefined);
  if (unlisted.length) parts.push(`network access to ${unlisted.join(', ')} (allowed: agentBash.sandbox.network.allowedDomains)`);
  for (const h of v.hosts) if (reasonOf(h) !== undefined) parts.push(`network access to ${h}: ${reasonOf(h)}`);
  if (!parts.length) return undefined;
  return `The OS sandbox refused ${parts.join('; and ')}.`;
}
