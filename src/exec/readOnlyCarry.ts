// What a read-only call (a fenced subshell, persistentShell.ts) carries back to its session: the
// same as any call (docs/SESSIONS.md, "Shell sessions that heal"): exported and plain shell variables whose
// names are not sensitive, their values only. The fenced subshell writes them, NUL-separated, into
// its scratch folder; the session's shell (outside the fence) copies that file only if it is a
// regular file of bounded size (the builtin's `-c`, native/readonly-builtin.c: no FIFO, link or
// device a leftover of the call could swap in), then assigns each name that passes its own checks
// with `printf -v` (never `eval`, no arithmetic: the name loses its attributes first). A call that
// ends with `exit`, or a value bash cannot hold, carries nothing; unsets do not carry.
import { SENSITIVE_GLOBS } from '../core/policy/analysis/sensitiveVariables';
import { RESTORE0 } from './sessionReset';
import { FENCE_BUILTIN_NAME } from './sandbox/readOnly/readOnlySupport';

/**
 * Names bash treats specially on assignment (arithmetic, hooks, dynamic values), its own, and ours:
 * never carried back (a fenced call's `OPTIND='a[$(…)]'` must not run in the session's shell).
 */
const NEVER_CARRIED = [
  'BASH*', 'SHELLOPTS', 'POSIXLY_CORRECT', 'PWD', 'OLDPWD', 'OPTIND', 'OPTERR', 'OPTARG', 'RANDOM', 'SRANDOM', 'SECONDS', 'LINENO',
  'HISTCMD', 'HIST*', 'EPOCHSECONDS', 'EPOCHREALTIME', 'GROUPS', 'FUNCNAME', 'DIRSTACK', 'COMP*', 'PIPESTATUS', 'UID', 'EUID', 'PPID',
  'SHLVL', 'LANG', 'LANGUAGE', 'LC_*', 'TZ', 'IFS', 'PS?', 'PS4', 'TERM', 'TERMCAP', 'TERMINFO', 'TEXTDOMAIN*', 'MAIL*', 'IGNOREEOF',
  'ignoreeof', 'histchars', 'auto_resume', 'GLOBIGNORE', 'GLOBSORT', 'EXECIGNORE', 'FUNCNEST', 'CHILD_MAX', 'HOSTFILE', 'INPUTRC',
  'HOME', 'TMPDIR', 'TMP', 'TEMP', 'ENV', 'CDPATH', 'TMOUT', 'TIMEFORMAT', 'PROMPT_DIRTRIM', 'READLINE_*', 'COPROC*',
  'EMACS', 'INSIDE_EMACS', 'HOSTNAME', 'HOSTTYPE', 'MACHTYPE', 'OSTYPE', 'COLUMNS', 'LINES', 'FIGNORE', 'FCEDIT',
  '__agent_bash*', '_',
  ...SENSITIVE_GLOBS,
].join('|');

/**
 * The never-carried names as one pattern, in a readonly variable the session's shell defines once as
 * it starts (`neverDefinition`): each call's text names it instead of carrying ~200 patterns, which
 * bash would parse again on every call. `[[ NAME == $VAR ]]` matches it as an extended glob.
 */
export const NEVER0 = '__agent_bash_never0';

/** The definition of NEVER0, run once as a session's shell starts (before its start state is taken). */
export function neverDefinition(): string {
  return `${NEVER0}='@(${NEVER_CARRIED})'; \\builtin readonly ${NEVER0}`;
}

/** Where a read-only call's variables are written, in its scratch folder. */
export function carryFile(scratch: string): string {
  return `${scratch}/.agent-bash-vars`;
}

/**
 * A lexical superset of the lines that can assign a variable: the carry costs a pass over every
 * variable, so lines that plainly cannot assign skip it (a line this misses only carries nothing).
 */
export function mayAssign(command: string): boolean {
  return (
    /=|\+\+|--|\b(?:read|readarray|mapfile|printf|declare|typeset|local|export|readonly|getopts|for|select|let|unset|shift|source|eval|wait|compgen|exec|coproc)\b/.test(command) ||
    /(?:^|[\s;&|(`])\.\s|\{[A-Za-z_]\w*\}[<>]/.test(command)
  );
}

const LETTERS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_'];

/**
 * Inside the call's subshell, after the command: every carried variable as NAME\0VALUE\0ATTRIBUTES\0.
 * `whole` (a command's subshell, below): every variable but arrays, namerefs and readonly ones,
 * unfiltered (the session's shell filters what it assigns, and only what changed), an integer's
 * value as a plain one.
 */
export function dumpScript(file: string, v: string, whole = false): string {
  const n = `__agent_bash_dn_${v}`;
  const names = LETTERS.map((c) => `\${!${c}@}`).join(' ');
  const record = `\\builtin printf '%s\\0%s\\0%s\\0' "$${n}" "\${!${n}}" "\${!${n}@a}"`;
  const each = whole
    ? `case \${!${n}@a}:$${n} in *[aAnr]*:*|*:__agent_bash*) ;; *) ${record};; esac;`
    : `[[ -z $${NEVER0} || $${n} == $${NEVER0} ]] || case \${!${n}@a} in *[aAnir]*) ;; *) ${record};; esac;`;
  return `{ IFS=$' \\t\\n'; ${'\\builtin'} set +u; for ${n} in ${names}; do ${each} done > '${file}'; } 2>/dev/null;`;
}

/** In the session's shell, after a fenced read's subshell: each variable of the file that passes the checks, assigned. */
export function loadScript(file: string, copy: string, v: string): string {
  const [n, val, a] = [`__agent_bash_ln_${v}`, `__agent_bash_lv_${v}`, `__agent_bash_la_${v}`];
  const b = '\\builtin ';
  return (
    `if ${b}${FENCE_BUILTIN_NAME} -c '${file}' '${copy}'; then ` +
    eachRecord(copy, v, `if [[ $${n} =~ ^[A-Za-z_][A-Za-z0-9_]*$ && $${n} != $${RESTORE0} ]] && ! [[ -R $${n} ]]; then ${assign(n, val, a)} fi;`) +
    ` ${b}${FENCE_BUILTIN_NAME} -r '${copy}'; fi; ${b}unset -v ${n} ${val} ${a};`
  );
}

/**
 * Runs `body` for each record of the copied file with its fields in the call's NAME, VALUE and
 * ATTRIBUTES variables. `mapfile` reads the file in a few large reads (a `read -d ''` per field made
 * several system calls a field, each through the sandbox's filter: 11 ms for 137 variables).
 */
function eachRecord(copy: string, v: string, body: string): string {
  const [n, val, a, m, i] = [`__agent_bash_ln_${v}`, `__agent_bash_lv_${v}`, `__agent_bash_la_${v}`, `__agent_bash_lm_${v}`, `__agent_bash_li_${v}`];
  const b = '\\builtin ';
  return (
    `${b}mapfile -d '' -t ${m} < '${copy}'; for ((${i} = 0; ${i} + 2 < \${#${m}[@]}; ${i} += 3)); do ` +
    `${n}=\${${m}[${i}]}; ${val}=\${${m}[${i} + 1]}; ${a}=\${${m}[${i} + 2]}; ${body} done; ${b}unset -v ${m} ${i};`
  );
}

/** Assigns NAME (checked: an identifier) the VALUE, exported when ATTRIBUTES say so, unless never carried. */
function assign(n: string, val: string, a: string): string {
  const b = '\\builtin ';
  return `[[ -z $${NEVER0} || $${n} == $${NEVER0} ]] || { ${b}unset -v -- "$${n}" && ${b}printf -v "$${n}" %s "$${val}" && case $${a} in *x*) ${b}export -- "$${n}";; esac; };`;
}

/**
 * In the session's shell, after a command's subshell (whole dump): the file lists every variable
 * the subshell had, so the shell assigns what differs from its own (value or export; the rest is
 * skipped without the pattern test, which is most of the cost) and unsets what the subshell no
 * longer had. Only once the file was copied whole: a subshell that ended early (`exit`, `exec`, a
 * kill) carries nothing.
 */
export function syncScript(file: string, copy: string, v: string): string {
  const [n, val, a, o, seen] = [`__agent_bash_ln_${v}`, `__agent_bash_lv_${v}`, `__agent_bash_la_${v}`, `__agent_bash_lo_${v}`, `__agent_bash_seen_${v}`];
  const b = '\\builtin ';
  const names = LETTERS.map((c) => `\${!${c}@}`).join(' ');
  // `case` on the name first: only an identifier reaches an indirect expansion.
  const same = `[[ \${!${n}+x} == x && \${!${n}} == "$${val}" ]] && { ${o}=\${!${n}@a}; [[ $${o} == *x* && $${a} == *x* || $${o} != *x* && $${a} != *x* ]]; }`;
  return (
    `if ${b}${FENCE_BUILTIN_NAME} -c '${file}' '${copy}'; then ${b}declare -A ${seen}; ` +
    eachRecord(
      copy,
      v,
      `case $${n} in ''|[0-9]*|*[!A-Za-z0-9_]*) ${b}continue;; esac; ${seen}[$${n}]=1; if ${same}; then ${b}continue; fi; ` +
        `if [[ $${n} != $${RESTORE0} ]] && ! [[ -R $${n} ]]; then ${assign(n, val, a)} fi;`,
    ) +
    ` ${b}${FENCE_BUILTIN_NAME} -r '${copy}'; ` +
    // Cheap tests first: the pattern is the costly one, so it is asked only of a name to unset.
    `for ${n} in ${names}; do [[ -v ${seen}[$${n}] ]] && ${b}continue; case \${!${n}@a}:$${n} in *[aAnr]*:*|*:__agent_bash*) ${b}continue;; esac; ` +
    `[[ -z $${NEVER0} || $${n} == $${NEVER0} ]] || ${b}unset -v -- "$${n}"; done; ` +
    `fi; ${b}unset -v ${n} ${val} ${a} ${o} ${seen};`
  );
}
