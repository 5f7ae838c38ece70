// The environment a sandboxed command starts with: an allowlist, not the host's whole environment.
// The host (VS Code's extension host, a terminal running the CLI) holds tokens (`GITHUB_TOKEN`,
// cloud keys), agent sockets (`SSH_AUTH_SOCK`) and VS Code's IPC handles (`VSCODE_IPC_HOOK_CLI`,
// `VSCODE_GIT_IPC_HANDLE`…); none of them reaches a sandboxed command unless the user names it in
// `agentBash.sandbox.env.allow`. What passes: locale and time zone, PATH, HOME, the user's names,
// SHELL, the terminal type, the non-interactive variables Agent Bash sets (nonInteractiveEnv.ts,
// with only its own git settings), Agent Bash's own marks (`AGENT_BASH_*`), and everything the
// call gave on purpose (its `env` parameter and the project's direnv values, judged by the policy).
// The runtime then adds TMPDIR and the proxy variables.
import { GIT_NEUTRAL_CONFIG, NON_INTERACTIVE_ENV } from '../../core/nonInteractiveEnv';

/** Names (and `*` globs) that pass by default. */
export const SANDBOX_ENV_ALLOW: readonly string[] = [
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TZ',
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'COLORTERM',
  'AGENT_BASH_*',
  ...Object.keys(NON_INTERACTIVE_ENV),
];

/** Where Agent Bash points the askpass variables: programs that fail at once. */
const FALSE_PROGRAMS = new Set(['/usr/bin/false', '/bin/false']);

/** A glob of names (`*` any run of characters) as a test. */
function nameMatcher(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set<string>();
  const globs: RegExp[] = [];
  for (const p of patterns) {
    if (!p.includes('*')) exact.add(p);
    else globs.push(new RegExp(`^${p.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`));
  }
  return (name) => exact.has(name) || globs.some((g) => g.test(name));
}

export interface SandboxEnvOptions {
  /** Variables the call set on purpose (its `env`, the project's direnv values): always kept. */
  given?: Readonly<Record<string, string>>;
  /** `agentBash.sandbox.env.allow`: more names or globs to keep. */
  allow?: readonly string[];
}

/**
 * bubblewrap's arguments that give the command exactly `env`. The processes before it (the
 * launcher's bash, nsenter, bwrap) run outside the sandbox with an empty environment: a variable
 * the call or a project's `.envrc` set (`BASH_ENV`, `BASH_FUNC_exec%%`, `SHELLOPTS`, `PATH`) must
 * never steer what runs on the host.
 */
export function envArgs(env: Readonly<Record<string, string>>): string[] {
  const args = ['--clearenv'];
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  return args;
}

/** `env` cut down to what a sandboxed command may see. */
export function sandboxEnv(env: Readonly<Record<string, string>>, opts: SandboxEnvOptions = {}): Record<string, string> {
  const given = opts.given ?? {};
  const allowed = nameMatcher([...SANDBOX_ENV_ALLOW, ...(opts.allow ?? [])]);
  const userAllowed = nameMatcher(opts.allow ?? []);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (Object.hasOwn(given, name) && given[name] === value) out[name] = value;
    else if (/^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/.test(name)) continue;
    else if (name === 'GIT_ASKPASS' || name === 'SSH_ASKPASS') {
      if (FALSE_PROGRAMS.has(value) || userAllowed(name)) out[name] = value;
    } else if (allowed(name)) out[name] = value;
  }
  Object.assign(out, gitConfigOf(env, given, userAllowed));
  return out;
}

/**
 * The `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n` entries that stay, numbered again from 0: Agent Bash's
 * own (GIT_NEUTRAL_CONFIG), and the host's only when the call gave them or the user allowed them
 * (they may carry credentials, e.g. `http.extraHeader`).
 */
function gitConfigOf(env: Readonly<Record<string, string | undefined>>, given: Readonly<Record<string, string | undefined>>, userAllowed: (name: string) => boolean): Record<string, string> {
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? '', 10);
  if (!Number.isInteger(count) || count <= 0) return {};
  const ours = new Map<string, string>(GIT_NEUTRAL_CONFIG.map(([k, v]) => [k, v]));
  const kept: Array<[string, string]> = [];
  for (let i = 0; i < count; i++) {
    const key = env[`GIT_CONFIG_KEY_${i}`];
    const value = env[`GIT_CONFIG_VALUE_${i}`];
    if (key === undefined || value === undefined) continue;
    const onPurpose = given[`GIT_CONFIG_KEY_${i}`] === key || userAllowed(`GIT_CONFIG_KEY_${i}`);
    if (onPurpose || ours.get(key) === value) kept.push([key, value]);
  }
  if (kept.length === 0) return {};
  const out: Record<string, string> = { GIT_CONFIG_COUNT: String(kept.length) };
  kept.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${i}`] = key;
    out[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return out;
}
