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

/** Where a read-only call's variables are written, in its scratch folder. */
export function carryFile(scratch: string): string {
  return `${scratch}/.agent-bash-vars`;
}

/**
 * A lexical superset of the lines that can assign a variable: the carry costs a pass over every
 * variable, so lines that plainly cannot assign skip it (a line this misses only carries nothing).
 */
export function mayAssign(command: string): boolean {
  return /=|\+\+|--|\b(?:read|readarray|mapfile|printf|declare|typeset|local|export|getopts|for|select|let|unset|shift)\b/.test(command);
}

const LETTERS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_'];

/** Inside the fenced subshell, after the command: every carried variable as NAME\0VALUE\0ATTRIBUTES\0. */
export function dumpScript(file: string, v: string): string {
  const n = `__agent_bash_dn_${v}`;
  const names = LETTERS.map((c) => `\${!${c}@}`).join(' ');
  return (
    `{ IFS=$' \\t\\n'; ${'\\builtin'} set +u; for ${n} in ${names}; do case $${n} in ${NEVER_CARRIED}) ;; *) case \${!${n}@a} in *[aAnir]*) ;; ` +
    `*) \\builtin printf '%s\\0%s\\0%s\\0' "$${n}" "\${!${n}}" "\${!${n}@a}";; esac;; esac; done > '${file}'; } 2>/dev/null;`
  );
}

/** In the session's shell, after the subshell: each variable of the file that passes the checks, assigned. */
export function loadScript(file: string, copy: string, v: string): string {
  const [n, val, a] = [`__agent_bash_ln_${v}`, `__agent_bash_lv_${v}`, `__agent_bash_la_${v}`];
  const b = '\\builtin ';
  return (
    `if ${b}${FENCE_BUILTIN_NAME} -c '${file}' '${copy}'; then ` +
    `while IFS= ${b}read -r -d '' ${n} && IFS= ${b}read -r -d '' ${val} && IFS= ${b}read -r -d '' ${a}; do ` +
    `if [[ $${n} =~ ^[A-Za-z_][A-Za-z0-9_]*$ && $${n} != $${RESTORE0} ]] && ! [[ -R $${n} ]]; then case $${n} in ${NEVER_CARRIED}) ;; ` +
    `*) ${b}unset -v -- "$${n}" && ${b}printf -v "$${n}" %s "$${val}" && case $${a} in *x*) ${b}export -- "$${n}";; esac;; esac; fi; ` +
    `done < '${copy}'; ${b}${FENCE_BUILTIN_NAME} -r '${copy}'; fi; ${b}unset -v ${n} ${val} ${a};`
  );
}
