// Which variables decide what runs or what a program reads, and which are inert enough to set in a
// command's environment without asking. Two different questions, two tables:
//
// - `isSensitiveVariable`: a change to this variable, in any form (assignment, `export`, `read`,
//   `for NAME in`, `printf -v`, `unset`, …), can change which program a later command runs, what it
//   loads, or how bash reads the rest of the line. Such a change asks. Ordinary shell variables
//   (`f`, `line`, `count`, `OUT`) are not in it, so loops and reads stay allowable.
// - `isInertEnvName`: an allowlist for `NAME=value cmd`, `env NAME=value cmd` and the tool's `env`
//   parameter. A program can read any variable of its environment, so only names whose every value
//   is harmless (locale, time zone, colour and terminal size) are auto-approved; anything else asks.
//
// Plain data and string work only.
import { isParsingLocaleName, isParsingSafeLocale, localeCharsetReason } from './localeCharset';

/** Exact names bash itself, the C library or common programs read as code, paths or options. */
const SENSITIVE_EXACT: ReadonlySet<string> = new Set([
  // bash: lookup, expansion, prompts, start-up files, history, options
  'PATH', 'HOME', 'IFS', 'ENV', 'CDPATH', 'GLOBIGNORE', 'PS0', 'PS1', 'PS2', 'PS3', 'PS4', 'PROMPT_COMMAND',
  'HISTFILE', 'HISTCONTROL', 'HISTIGNORE', 'HISTTIMEFORMAT', 'SHELLOPTS', 'POSIXLY_CORRECT', 'EXECIGNORE', 'FIGNORE',
  'HOSTFILE', 'INPUTRC', 'FCEDIT', 'MAIL', 'MAILPATH', 'SHELL', 'PWD', 'OLDPWD', 'COMP_WORDBREAKS',
  // how bash reads: `read`'s default timeout (the persistent shell reads each call with `read`), history expansion
  'TMOUT', 'histchars',
  // zsh's arrays tied to the search paths
  'path', 'cdpath', 'fpath', 'manpath', 'module_path', 'ZDOTDIR',
  // temporary files, pagers, editors, browsers
  'TMPDIR', 'TMP', 'TEMP', 'TEMPDIR', 'PAGER', 'MANPAGER', 'MANOPT', 'MANPATH', 'MANSECT', 'EDITOR', 'VISUAL', 'BROWSER',
  'EXINIT', 'VIMINIT', 'GVIMINIT', 'MYVIMRC', 'EMACSLOADPATH', 'TERMINFO', 'TERMINFO_DIRS', 'TERMCAP',
  // C library: code, locale and resolver files
  'GCONV_PATH', 'LOCPATH', 'NLSPATH', 'HOSTALIASES', 'RES_OPTIONS', 'LOCALDOMAIN', 'RESOLV_HOST_CONF',
  // interpreters and build tools
  'CLASSPATH', 'CC', 'CXX', 'CPP', 'LD', 'AR', 'AS', 'NM', 'RANLIB', 'STRIP', 'OBJCOPY', 'MAKE', 'MAKEFILES',
  'MFLAGS', 'RUSTC', 'RUSTDOC', 'TAR_OPTIONS', 'GZIP', 'BZIP', 'BZIP2', 'XZ_OPT', 'XZ_DEFAULTS', 'ZSTD_CLEVEL',
  'RIPGREP_CONFIG_PATH', 'GREP_OPTIONS', 'KUBECONFIG', 'WGETRC', 'CURL_HOME', 'CVS_RSH', 'RSYNC_RSH',
  'RSYNC_CONNECT_PROG', 'PKG_CONFIG', 'GNUPGHOME',
]);

/**
 * Families, as bash glob patterns: the persistent shell restores exactly these with a `case`
 * (persistentShell.ts), and the policy reads the same patterns (`isSensitiveVariable`). Names are
 * case-sensitive in bash; the few families read case-blind (`npm_config_*`, `*_proxy`) spell both cases.
 */
const SENSITIVE_PREFIXES: readonly string[] = [
  // BASH_ENV, BASH_CMDS, BASH_ALIASES, BASH_XTRACEFD, BASH_LOADABLES_PATH, BASH_COMPAT, BASHOPTS, …
  'BASH', 'LD_', 'DYLD_', 'GLIBC_', 'MALLOC_', 'GCONV', 'GIT_', 'LESS',
  'PYTHON', 'PERL', 'RUBY', 'GEM_', 'BUNDLE', 'LUA_', 'TCL', 'JAVA', '_JAVA', 'JDK_', 'MAVEN_', 'GRADLE_', 'SBT_', 'ANT_',
  'DOTNET_', 'NUGET_', 'NODE_', 'NPM_', 'YARN_', 'PNPM_', 'COREPACK_', 'BUN_', 'DENO_', 'ELECTRON_', '[Nn][Pp][Mm]_',
  'CARGO', 'RUSTUP_', 'RUSTC_', 'RUSTFLAGS', 'RUSTDOCFLAGS', 'GO', 'CGO_',
  'PIP_', 'PIPX_', 'POETRY_', 'UV_', 'VIRTUAL_ENV', 'CONDA', 'PYENV', 'RBENV', 'NVM_', 'VOLTA_', 'ASDF_', 'MISE_', 'HOMEBREW_',
  'XDG_', 'COMPOSER', 'PHP',
  'SSH_', 'SUDO_', 'GPG', 'OPENSSL_', 'SSL_', 'CURL_', 'WGET', 'DOCKER_', 'KUBE', 'HELM_', 'AWS_', 'GOOGLE_', 'CLOUDSDK_',
  'AZURE_', 'GH_', 'GLAB_', 'HG', 'SVN_',
];
/** Shapes that name a program, options, a search path or a config file. */
const SENSITIVE_SUFFIXES: readonly string[] = [
  'PAGER', 'EDITOR', '_SHELL', '_PATH', 'PATH_', '_HOME', '_OPTS', '_OPTIONS', 'FLAGS', '_CONFIG', 'CONFIG_', '_RC', 'RC_',
  '_INIT', '_PRELOAD', '_COMMAND', '_CMD', '_PROGRAM', '_PROG', '_EXEC', '_WRAPPER', '_HOOK', '_HOOKS', '_ASKPASS',
  '_PLUGIN', '_PLUGINS', '_LIB', '_LIBS', '_LIBRARY', '_MODULES',
];
const PROXY_GLOBS: readonly string[] = ['[Hh][Tt][Tt][Pp]', '[Hh][Tt][Tt][Pp][Ss]', '[Ff][Tt][Pp]', '[Aa][Ll][Ll]', '[Nn][Oo]'].map(
  (scheme) => `${scheme}_[Pp][Rr][Oo][Xx][Yy]`,
);

/** Names the families above would catch that are ordinary (`NODE_ENV` picks a configuration, not code). */
export const NOT_SENSITIVE: readonly string[] = Object.freeze(['NODE_ENV']);

/** Every sensitive name as one list of bash glob patterns (`case NAME in PATTERN|PATTERN) …`). */
export const SENSITIVE_GLOBS: readonly string[] = Object.freeze([
  ...SENSITIVE_EXACT,
  ...SENSITIVE_PREFIXES.map((p) => `${p}*`),
  ...SENSITIVE_SUFFIXES.map((p) => `*${p}`),
  ...PROXY_GLOBS,
]);

/** A bash glob of the forms above (`*`, `[…]`, literal text) as an anchored JavaScript pattern. */
function globSource(glob: string): string {
  return glob.replace(/\[[^\]]*\]|\*|[^[*]+/g, (part) => (part === '*' ? '.*' : part.startsWith('[') ? part : part.replace(/[.*+?^${}()|\\]/g, '\\$&')));
}
const SENSITIVE_RE = new RegExp(`^(?:${SENSITIVE_GLOBS.map(globSource).join('|')})$`);

/** A change to this variable can change what later commands run or read (see the header). */
export function isSensitiveVariable(name: string): boolean {
  return !NOT_SENSITIVE.includes(name) && SENSITIVE_RE.test(name);
}

/**
 * Names a command's environment may carry without asking: every value is harmless. `LC_*`
 * (locale categories), `LANG`, `LANGUAGE`, `TZ`, colour and terminal size, `CI`, and the coreutils
 * display settings. Stated in docs/POLICY.md (the sensitive variables).
 */
export const INERT_ENV_NAMES: readonly string[] = Object.freeze([
  'LANG', 'LANGUAGE', 'TZ', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLORTERM', 'CI', 'TERM',
  'COLUMNS', 'LINES', 'TIME_STYLE', 'QUOTING_STYLE', 'LS_COLORS', 'GREP_COLOR', 'GREP_COLORS', 'BLOCK_SIZE',
  'BLOCKSIZE', 'DF_BLOCK_SIZE', 'DU_BLOCK_SIZE', 'LS_BLOCK_SIZE', 'SOURCE_DATE_EPOCH', 'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE',
]);
const INERT_SET: ReadonlySet<string> = new Set(INERT_ENV_NAMES);

/** `LC_ALL`, `LC_CTYPE`, … and the names above. Everything else in an environment prefix asks. */
export function isInertEnvName(name: string): boolean {
  return INERT_SET.has(name) || /^LC_[A-Z]+$/.test(name);
}

/**
 * Names that look like they hold a secret: tokens, keys, passwords, credentials, session cookies,
 * connection strings, agent and editor sockets. The sandbox's environment leaves them out
 * (sandboxEnv.ts keeps an allowlist); off the sandbox a command sees the parent's values, so a line
 * that expands one (`echo "$GITHUB_TOKEN"`, a here-document or here-string) asks.
 */
const SECRET_NAME =
  /TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|PRIVATE|COOKIE|WEBHOOK|(?:^|_)(?:API|ACCESS|AUTH|CLIENT|SIGNING|ENCRYPTION|MASTER|LICEN[CS]E|DEPLOY|SSH|GPG|PGP)_?KEY|(?:^|_)KEYS?(?:_|$)|(?:^|_)AUTH(?:_|$)|AUTHORIZATION|(?:^|_)(?:PAT|PWD|PASS|DSN|SID)$|DATABASE_URL|CONNECTION_STRING|IPC_HOOK|IPC_HANDLE|AUTH_SOCK|AGENT_PID/i;

export function isSecretLookingName(name: string): boolean {
  return name !== 'PWD' && name !== 'OLDPWD' && SECRET_NAME.test(name);
}

/** The name of a `NAME=value` / `NAME+=value` / `NAME[i]=value` word, or undefined. */
export function assignedName(assignment: string): string | undefined {
  return /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/.exec(assignment)?.[1];
}

/** Reasons the policy gives. Tests assert these texts. */
export const VARIABLE_REASON = {
  /** A change to a sensitive variable, naming it and the form that changes it. */
  change: (name: string, form: string) => `${form} changes \`${name}\`, which decides what later commands run or read`,
  /** A form that sets a variable whose name is only known at run time. */
  dynamicName: (form: string) => `${form} sets a variable whose name is only known at run time`,
  /** A value bash evaluates as arithmetic (`OPTIND`, `RANDOM`, …): a subscript in it runs a command. */
  arithmeticValue: (name: string, form: string) =>
    `${form} changes \`${name}\`, whose value bash evaluates as arithmetic (a subscript in it runs a command)`,
  /** `declare -i`: later assignments to the name are evaluated as arithmetic. */
  integerAttribute: (form: string) => `${form} makes later assignments evaluate their value as arithmetic, where a subscript runs a command`,
  /** A form that makes later assignments write another variable. */
  nameref: (form: string) => `${form} makes later assignments write the variable it names`,
  /** `mapfile -C`: a callback evaluated as shell code. */
  callback: (form: string) => `${form} runs its callback as shell code`,
  /** An inert name whose value names a file (a locale folder, a time-zone file) or is known only at run time. */
  envValue: (name: string) => `\`${name}=…\` names a file for \`${name}\` (a locale or time-zone file is read from it), or a value known only at run time`,
  /** A non-inert name in a command's environment. */
  envPrefix: (name: string) =>
    `\`${name}=…\` sets \`${name}\` in the command's environment; only inert names (locale, time zone, colour, terminal size) are auto-approved`,
  /** `trap … DEBUG`, `shopt -s extdebug`, `set -T`: code that runs before (or skips) later commands. */
  commandHook: (form: string) => `\`${form}\` runs code before later commands, or lets a trap skip them`,
  /** `set -k` / `set -a`: later words become environment settings. */
  shellOption: (form: string) => `\`${form}\` makes later \`NAME=value\` words environment settings`,
} as const;

/** Builtins for which a prefix `IFS=…` only sets how that one call splits its input. */
const SPLITTING_BUILTINS: ReadonlySet<string> = new Set(['read', 'mapfile', 'readarray']);

/**
 * The prefix assignments the checks look at: `IFS=` in front of `read`/`mapfile`/`readarray`
 * (`while IFS= read -r line`) is temporary and only changes how that builtin splits, so it is left out.
 */
export function prefixAssignmentsThatMatter(assignments: readonly string[], argv: readonly string[]): readonly string[] {
  const head = argv.at(0);
  if (head === undefined || !SPLITTING_BUILTINS.has(head)) return assignments;
  return assignments.filter((a) => assignedName(a) !== 'IFS');
}

/** Why `NAME=value` words in front of a command (or inside `env`) make it ask, or undefined when all are inert. */
export function envPrefixRisk(assignments: readonly string[]): string | undefined {
  for (const a of assignments) {
    const name = assignedName(a);
    if (name !== undefined && !isInertEnvName(name)) return VARIABLE_REASON.envPrefix(name);
    if (name !== undefined && !isInertEnvValue(name, a.slice(a.indexOf('=') + 1))) return VARIABLE_REASON.envValue(name);
    if (name !== undefined && !parsesAsUtf8(name, a.slice(a.indexOf('=') + 1))) return localeCharsetReason(name);
  }
  return undefined;
}

/**
 * False when `NAME=value` makes bash read lines in a character set the policy does not read them in
 * (localeCharset.ts): `LC_ALL`, `LC_CTYPE` or `LANG` naming GBK, BIG5, Shift_JIS, … or no set at all.
 * Quotes and backslashes are dropped first (the value as written in a prefix).
 */
export function parsesAsUtf8(name: string, value: string): boolean {
  if (!isParsingLocaleName(name)) return true;
  if (/[$`]/.test(value)) return false;
  return isParsingSafeLocale(value.replace(/['"\\]/g, ''));
}

/**
 * Whether the value of an inert name is inert too. The C library reads a locale from a folder when
 * its name is an absolute path (`LC_ALL=/x`), and a time zone from any file (`TZ=/x`, `TZ=:/x`,
 * `TZ=../../x` under the zoneinfo folder); a value known only at run time may be either. Quotes and
 * backslashes are dropped first (the value as written in a prefix).
 */
export function isInertEnvValue(name: string, value: string): boolean {
  if (/[$`~]/.test(value)) return false;
  const v = value.replace(/['"\\]/g, '');
  if (name === 'TZ') {
    const file = v.replace(/^:/, '');
    return !file.startsWith('/') && !file.includes('..');
  }
  if (name === 'LANG' || name === 'LANGUAGE' || name === 'TERM' || /^LC_[A-Z]+$/.test(name)) return !v.includes('/');
  return true;
}
