// What a persistent bash session carries from one call to the next, and the text that resets the
// rest before each call (persistentShell.ts). A call may define a function or alias named `ls`, a
// DEBUG trap, `shopt -s expand_aliases`, `PATH=/tmp/evil:$PATH`, `hash -p`, `enable -n`, a nameref or
// an integer variable: without a reset, every later *allowed* `ls` would run what it left behind.
//
// Before each call the shell:
// 1. (its own line, so nothing of it is alias-expanded) enters POSIX mode by an assignment, where the
//    special builtins `unset`, `trap` and `set` are found before any function; drops functions named
//    `builtin` and `unalias`, the DEBUG/RETURN/ERR traps, `set -e`/`-u`/`-x`/`-v`, and every alias;
// 2. re-enables every disabled builtin, drops every function, alias and remembered command path
//    (`hash -r`), resets every trap, puts every `set -o`/`shopt` option back as the shell started
//    (`expand_aliases`, `extglob`, `nullglob`, `posix`, `errexit`, …), unsets namerefs, drops the
//    integer attribute, and restores the sensitive variables (sensitiveVariables.ts) to their values
//    at the start: set ones to the same value and export, ones set later unset again;
// 3. checks the result against the snapshot taken at the start. A step that fails (a `readonly PATH`,
//    a readonly function, a disabled `enable`) or a check that differs refuses the call; the executor
//    then replaces the shell and runs the command in the new one, saying so in the result.
//
// What carries: the working directory, exported ordinary variables, and plain shell variables whose
// names are not sensitive (their values; the integer and nameref attributes do not carry).
import { NOT_SENSITIVE, SENSITIVE_GLOBS } from '../core/policy/sensitiveVariables';

/** Where the start state is kept: readonly from the start, so no command can change or pre-empt them. */
const OPTIONS0 = '__agent_bash_options0';
const VARIABLES0 = '__agent_bash_variables0';
const READONLY0 = '__agent_bash_readonly0';
/** What the check after the reset must see again: the options and the set of builtins (`enable -a`). */
const CHECK0 = '__agent_bash_check0';
/** Integer and nameref variables bash itself has at the start (`RANDOM`, `PPID`, …): left alone. */
const ATTRIBUTED0 = '__agent_bash_attributed0';

/**
 * Sensitive names bash manages itself (read-only, dynamic, or restored by another step: options,
 * aliases, the hash table) and the directory pair that carries with the working directory.
 */
const NOT_RESTORED: readonly string[] = [
  'BASH', 'BASHOPTS', 'BASHPID', 'BASH_ALIASES', 'BASH_ARGC', 'BASH_ARGV', 'BASH_ARGV0', 'BASH_CMDS', 'BASH_COMMAND',
  'BASH_EXECUTION_STRING', 'BASH_LINENO', 'BASH_MONOSECONDS', 'BASH_REMATCH', 'BASH_SOURCE', 'BASH_SUBSHELL',
  'BASH_TRAPSIG', 'BASH_VERSINFO', 'BASH_VERSION', 'SHELLOPTS', 'PWD', 'OLDPWD', 'POSIXLY_CORRECT',
];

/** Signal numbers whose traps are reset (bash accepts `trap - N` for every one of them). */
const SIGNALS = Array.from({ length: 64 }, (_, k) => String(k + 1)).join(' ');

/** `case NAME in <this>) …`: the sensitive names bash should restore. */
function restoredPattern(): string {
  return SENSITIVE_GLOBS.join('|');
}

/** `case NAME in <this>) ;;`: names the restore leaves alone. */
function leftAlonePattern(): string {
  return [...NOT_SENSITIVE, ...NOT_RESTORED].join('|');
}

/**
 * Startup lines (bash): snapshot the options (`set +o; shopt -p`), the sensitive variables
 * (`declare -p`) and the names of sensitive variables that are already readonly, into readonly
 * variables. `n` is a per-start suffix for the loop variable.
 */
export function resetStartupScript(n: string): string {
  const name = `__agent_bash_n_${n}`;
  return [
    `${READONLY0}=' '; ${VARIABLES0}=`,
    `for ${name} in $(\\builtin compgen -v); do case $${name} in ${leftAlonePattern()}) ;; ${restoredPattern()}) ` +
      `case \${!${name}@a} in *r*) ${READONLY0}+="$${name} ";; *) ${VARIABLES0}+="$(\\builtin declare -p "$${name}")"$'\\n';; esac;; esac; done`,
    `${ATTRIBUTED0}=' '; for ${name} in $(\\builtin declare -i; \\builtin declare -n); do ${ATTRIBUTED0}+="\${${name}%%=*} "; done`,
    `\\builtin unset ${name}`,
    `${OPTIONS0}="$(\\builtin set +o; \\builtin shopt -p)"; ${CHECK0}="$(\\builtin set +o; \\builtin shopt -p; \\builtin enable -a)"`,
    `\\builtin readonly ${OPTIONS0} ${CHECK0} ${VARIABLES0} ${READONLY0} ${ATTRIBUTED0}`,
  ].join('\n');
}

/**
 * The first line of a call (bash), sent on its own: bash parses a line before running any of it, so
 * the aliases this line drops cannot touch the next one. Everything here is an assignment, a quoted
 * special builtin (found before functions in POSIX mode) or `\builtin` once its function is gone.
 */
export function resetFirstLine(): string {
  return (
    'POSIXLY_CORRECT=y; \\unset -f builtin unalias; \\trap - DEBUG RETURN ERR; \\set +euxv; ' +
    '\\builtin unalias -a; \\builtin shopt -u expand_aliases\n'
  );
}

/**
 * The reset steps of a call (bash), as one command whose status is 0 only when the session is back
 * to its start state. `v` is the call's suffix for the wrapper's own variables (listed in `own`).
 */
export function resetScript(v: string, own: string[]): string {
  const n = `__agent_bash_n_${v}`;
  const failed = `__agent_bash_rf_${v}`;
  own.push(n, failed);
  const fail = `|| ${failed}=1`;
  return (
    `${failed}=; IFS=$' \\t\\n'; ` +
    // Builtins the reset uses first, then every builtin still disabled.
    `\\builtin enable builtin cd compgen declare enable eval export hash printf readonly set shopt trap unalias unset ${fail}; ` +
    `for ${n} in $(\\builtin enable -n); do case $${n} in enable|-n) ;; *) \\builtin enable "$${n}" ${fail};; esac; done; ` +
    // Functions (names may hold glob characters: no globbing while they are listed), aliases, hash, traps.
    `\\builtin set -f; for ${n} in $(\\builtin compgen -A function); do \\builtin unset -f -- "$${n}" ${fail}; done; ` +
    `\\builtin unalias -a; \\builtin hash -r; \\builtin trap - EXIT ${SIGNALS} ${fail}; ` +
    // Options as the shell started (also leaves the POSIX mode of the first line, unless it started so).
    `\\builtin eval "$${OPTIONS0}"; ` +
    // Variables: namerefs go and integer attributes go (set or only declared: `declare -i`/`-n`
    // list both), then the sensitive variables are unset and restored.
    `for ${n} in $(\\builtin declare -i; \\builtin declare -n); do ${n}=\${${n}%%=*}; ` +
    `case $${n} in declare|-*) ;; *) case $${ATTRIBUTED0} in *" $${n} "*) ;; *) ` +
    `if [[ -R $${n} ]]; then \\builtin unset -n "$${n}" ${fail}; else \\builtin declare +i "$${n}" ${fail}; fi;; esac;; esac; done; ` +
    `for ${n} in $(\\builtin compgen -v); do ` +
    `case $${n} in ${leftAlonePattern()}|${n}|${failed}) ;; ${restoredPattern()}) ` +
    `case $${READONLY0} in *" $${n} "*) ;; *) \\builtin unset -v "$${n}" ${fail};; esac;; esac; done; ` +
    `\\builtin unset -v POSIXLY_CORRECT ${fail}; \\builtin eval "$${VARIABLES0}" ${fail}; ` +
    `\\builtin eval "$${OPTIONS0}"; ` +
    // The check: options and builtins as at the start (no loaded `enable -f` one), and no function,
    // alias or trap left.
    `[[ -z $${failed} && "$(\\builtin set +o; \\builtin shopt -p; \\builtin enable -a; \\builtin compgen -A function; \\builtin alias; \\builtin trap -p)" == "$${CHECK0}" ]]`
  );
}
