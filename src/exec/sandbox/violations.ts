// What a sandboxed command was refused, read back from its output: the proxy's refusal lines name
// hosts; `Read-only file system` errors (coreutils, bash redirects, Node's EROFS, Python's Errno 30)
// name paths. The notice says what was refused and how to retry outside the sandbox; nothing retries
// on its own.
export interface Violations {
  paths: string[];
  hosts: string[];
}

/** The line the executors write into a command's output when the proxy refuses a host. */
export function refusalLine(host: string, port: number): string {
  return `[sandbox] network access to ${host}:${port} refused (not in agentBash.sandbox.network.allowedDomains)\n`;
}

const REFUSAL = /\[sandbox\] network access to (\S+?):\d+ refused/g;
const PROXY_BODY = /Agent Bash sandbox: network access to (\S+) is not allowed/g;
// Paths as the program printed them: absolute, or relative to wherever the command was then.
const QUOTED_PATH = /['‘"`]([^'’"`\n]+)['’"`]/g;
const BARE_PATH = /(?:^|\s)([^\s:'"‘’]+): [Rr]ead-only file system/g;

export function findViolations(output: string): Violations {
  const hosts = new Set<string>();
  for (const re of [REFUSAL, PROXY_BODY]) for (const m of output.matchAll(re)) hosts.add(m[1]);
  const paths = new Set<string>();
  for (const line of output.split('\n')) {
    if (!/read-only file system|EROFS/i.test(line)) continue;
    const quoted = [...line.matchAll(QUOTED_PATH)].map((m) => m[1]);
    const found = quoted.length > 0 ? quoted : [...line.matchAll(BARE_PATH)].map((m) => m[1]);
    for (const p of found) paths.add(p);
  }
  return { paths: [...paths], hosts: [...hosts] };
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
  const parts: string[] = [];
  if (v.paths.length) parts.push(`writing ${v.paths.join(', ')} (writable: the workspace folders, $TMPDIR, package caches, agentBash.sandbox.filesystem.allowWrite${v.paths.some(isGitMetadata) ? `; ${GIT_WRITE_HINT}` : ''})`);
  if (v.hosts.length) parts.push(`network access to ${v.hosts.join(', ')} (allowed: agentBash.sandbox.network.allowedDomains)`);
  if (!parts.length) return undefined;
  return `The OS sandbox refused ${parts.join('; and ')}. ${SANDBOX_RETRY_HINT}`;
}
