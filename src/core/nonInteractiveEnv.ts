// The environment every command runs under, on every route (one-shot, persistent shell, PTY, VS Code /
// ACP / API terminals, MCP): `commandEnv` is the one function they all call (docs/ARCHITECTURE.md,
// Routes). An agent has no keyboard: anything that would open a pager, an editor, a password prompt or
// a progress bar must be told not to, or the command hangs until its timeout. And git must not start
// a repository-configured fsmonitor, pager or editor: an allowed `git status` would run it. A PTY
// route keeps what a person watching needs (its TERM, colour) and drops only those entries.
// Plain data and string work only: no child_process, no vscode.
import { existsSync } from 'node:fs';
import { isParsingSafeLocale, PARSING_LOCALE_NAMES } from './policy/analysis/localeCharset';

/** oh-my-pi's non-interactive table, in its order. Values are applied under the caller's overrides. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = Object.freeze({
  // Pagers
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  SYSTEMD_PAGER: 'cat',
  BAT_PAGER: 'cat',
  DELTA_PAGER: 'cat',
  GH_PAGER: 'cat',
  GLAB_PAGER: 'cat',
  PSQL_PAGER: 'cat',
  MYSQL_PAGER: 'cat',
  AWS_PAGER: '',
  HOMEBREW_PAGER: 'cat',
  LESS: 'FRX',
  // Terminal
  TERM: 'dumb',
  NO_COLOR: '1',
  PYTHONUNBUFFERED: '1',
  // Prompts
  GIT_EDITOR: 'true',
  VISUAL: 'true',
  EDITOR: 'true',
  GIT_TERMINAL_PROMPT: '0',
  // Read forms stay reads: `git status` would otherwise refresh and rewrite .git/index.
  GIT_OPTIONAL_LOCKS: '0',
  SSH_ASKPASS: '/usr/bin/false',
  CI: '1',
  // Package managers
  npm_config_yes: 'true',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  npm_config_progress: 'false',
  // `npm ls` and friends would otherwise write a debug log under ~/.npm/_logs.
  npm_config_logs_max: '0',
  PNPM_DISABLE_SELF_UPDATE_CHECK: 'true',
  PNPM_UPDATE_NOTIFIER: 'false',
  YARN_ENABLE_TELEMETRY: '0',
  YARN_ENABLE_PROGRESS_BARS: '0',
  // Other tooling
  CARGO_TERM_PROGRESS_WHEN: 'never',
  DEBIAN_FRONTEND: 'noninteractive',
  PIP_NO_INPUT: '1',
  PIP_DISABLE_PIP_VERSION_CHECK: '1',
  TF_INPUT: '0',
  TF_IN_AUTOMATION: '1',
  GH_PROMPT_DISABLED: '1',
  COMPOSER_NO_INTERACTION: '1',
  CLOUDSDK_CORE_DISABLE_PROMPTS: '1',
  // Git Credential Manager has its own prompt switch; GIT_TERMINAL_PROMPT does not reach its GUI.
  GCM_INTERACTIVE: 'never',
});

/**
 * Git settings injected through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (git ≥ 2.31),
 * which beat every config file without touching any. fsmonitor would start a daemon that outlives
 * the command and holds its pipe open; the rest stop git from waiting for a person.
 */
export const GIT_NEUTRAL_CONFIG: ReadonlyArray<readonly [string, string]> = Object.freeze([
  ['core.fsmonitor', 'false'],
  ['core.pager', 'cat'],
  ['core.editor', 'true'],
  ['sequence.editor', 'true'],
  ['credential.interactive', 'false'],
] as const);

/** Where `SSH_ASKPASS`/`GIT_ASKPASS` point: a program that fails at once instead of asking. */
function falseProgram(): string {
  for (const candidate of ['/usr/bin/false', '/bin/false']) if (existsSync(candidate)) return candidate;
  return '/usr/bin/false';
}

function parseCount(value: string | undefined): number {
  if (value === undefined || !/^\d+$/.test(value.trim())) return 0;
  return Number.parseInt(value.trim(), 10);
}

/**
 * `base` (usually the shell env) with `undefined` values dropped, then the non-interactive defaults,
 * then the git neutralisation appended after any `GIT_CONFIG_*` entries already present (so a user's
 * own injected settings survive and ours, coming later, win for the keys we care about), then
 * `overrides` (the caller's env, which wins over the defaults).
 */
export function buildNonInteractiveEnv(
  base: NodeJS.ProcessEnv,
  overrides?: Record<string, string>,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  // bash reads every line in the character set of its locale, the policy in UTF-8: an inherited
  // locale in GBK, BIG5, Shift_JIS… (localeCharset.ts) is read as UTF-8 instead (a caller's asks).
  for (const key of PARSING_LOCALE_NAMES) if (key in env && !isParsingSafeLocale(env[key])) env[key] = 'C.UTF-8';
  Object.assign(env, NON_INTERACTIVE_ENV);
  const askPass = falseProgram();
  env.SSH_ASKPASS = askPass;
  env.GIT_ASKPASS = askPass;

  if (platform === 'win32') addWindowsUtf8Defaults(env, base, overrides);

  if (overrides) {
    for (const [key, value] of Object.entries(overrides)) {
      // Our appended entries must not be renumbered away by a caller's count.
      if (key === 'GIT_CONFIG_COUNT') continue;
      env[key] = value;
    }
  }
  // Entries may come from the base env or from the caller; ours go after every one of them (the last
  // setting of a key wins), so no caller's `GIT_CONFIG_KEY_n` can overwrite or outrank them.
  let index = Math.max(parseCount(base.GIT_CONFIG_COUNT), parseCount(overrides?.GIT_CONFIG_COUNT));
  for (const key of Object.keys(env)) {
    const n = /^GIT_CONFIG_(?:KEY|VALUE)_(\d+)$/.exec(key)?.[1];
    if (n !== undefined) index = Math.max(index, Number.parseInt(n, 10) + 1);
  }
  for (const [key, value] of GIT_NEUTRAL_CONFIG) {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
    index += 1;
  }
  env.GIT_CONFIG_COUNT = String(index);
  return env;
}

/** Entries of the non-interactive table a person at a terminal should not get. */
const NOT_FOR_A_TERMINAL = ['GIT_EDITOR', 'GPG_TTY', 'CI', 'NO_COLOR'];

/**
 * The environment of one command on any route: `base` (the shell config's env), the neutralising
 * table and git settings, then the caller's `overrides`. With `terminal` (a PTY: its TERM), the
 * entries meant for a pipe with nobody watching (`CI`, `NO_COLOR`, `GIT_EDITOR`, `GPG_TTY`) are
 * dropped unless the caller set them, and TERM is
 * the terminal's; the git neutralisation and the pagers stay.
 */
export function commandEnv(
  base: NodeJS.ProcessEnv,
  overrides?: Record<string, string>,
  opts: { terminal?: string; platform?: NodeJS.Platform } = {},
): Record<string, string> {
  const env = buildNonInteractiveEnv(base, overrides, opts.platform);
  if (opts.terminal === undefined) return env;
  for (const key of NOT_FOR_A_TERMINAL) {
    if (!overrides || !Object.hasOwn(overrides, key)) delete env[key];
  }
  env.TERM = overrides?.TERM ?? opts.terminal;
  return env;
}

/** The Windows UTF-8 groups: only when neither the inherited nor the caller env owns them. */
function addWindowsUtf8Defaults(
  env: Record<string, string>,
  base: NodeJS.ProcessEnv,
  overrides: Record<string, string> | undefined,
): void {
  const keys = new Set<string>();
  for (const key of Object.keys(base)) keys.add(key.toUpperCase());
  for (const key of Object.keys(overrides ?? {})) keys.add(key.toUpperCase());
  if (!keys.has('PYTHONIOENCODING') && !keys.has('PYTHONUTF8')) {
    env.PYTHONIOENCODING = 'utf-8';
    env.PYTHONUTF8 = '1';
  }
  const hasLocale = [...keys].some((key) => key === 'LANG' || key.startsWith('LC_'));
  if (!hasLocale) {
    env.LANG = 'C.UTF-8';
    env.LC_ALL = 'C.UTF-8';
  }
}
