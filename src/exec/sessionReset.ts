// What a persistent bash session carries from one call to the next, and the text that resets the
// rest before each call (persistentShell.ts). A call may define a function or alias named `ls`, a
// DEBUG trap, `shopt -s expand_aliases`, `PATH=/tmp/evil:$PATH`, `hash -p`, `enable -n`, a nameref or
// an integer variable: without a reset, every later *allowed* `ls` would run what it left behind.
//
// Before each call the shell:
// 1. (its own line, so nothing of it is alias-expanded) enters POSIX mode by an assignment, where the
//    special builtins `unset`, `trap` and `set` are found before any function; drops functions named
//    `builtin` and `unalias`, every trap, `set -e`/`-u`/`-x`/`-v`/`-k`, and every alias;
// 2. re-enables every disabled builtin, drops every function, alias and remembered command path
//    (`hash -r`), puts every `set -o`/`shopt` option back as the shell started
//    (`expand_aliases`, `extglob`, `nullglob`, `posix`, `errexit`, …), unsets namerefs, drops the
//    integer attribute, and restores the sensitive variables (sensitiveVariables.ts) and the locale
//    ones bash reads lines in (localeCharset.ts) to their values at the start: set ones to the same
//    value and export, ones set later unset again; puts `umask` back, forgets jobs, closes descriptors
//    above 2 a call opened, and exports the session's mark again (shellLeftovers.ts);
// 3. checks the result against the snapshot taken at the start (the option lists, the names of the
//    builtins: no `enable -f` one; the limits). A step that fails (a `readonly PATH`, a readonly function, a
//    disabled `enable`) or a check that differs refuses the call; the executor
//    then replaces the shell and runs the command in the new one, saying so in the result.
//
// What carries: exported ordinary variables and plain shell variables whose names are not sensitive
// (their values; the integer and nameref attributes do not carry). Each call runs in its own cwd.
// Not undoable from inside: a DEBUG trap under `shopt -s extdebug` can skip any command, the reset's
// too; setting either asks (variableWrites.ts).
import { PARSING_LOCALE_NAMES } from '../core/policy/analysis/localeCharset';
import { NOT_SENSITIVE, SENSITIVE_GLOBS } from '../core/policy/analysis/sensitiveVariables';

/** Where the start state is kept: readonly from the start, so no command can change or pre-empt them. */
const OPTIONS0 = '__agent_bash_options0';
const VARIABLES0 = '__agent_bash_variables0';
const READONLY0 = '__agent_bash_readonly0';
/** What the check after the reset must see again: the option lists and the names of the builtins. */
const SHOPTS0 = '__agent_bash_shopts0';
const BUILTINS0 = '__agent_bash_builtins0';
/** Integer and nameref variables bash itself has at the start (`RANDOM`, `PPID`, …): left alone. */
const ATTRIBUTED0 = '__agent_bash_attributed0';
/**
 * The name patterns as `@(…|…)`, kept in the shell from the start: bash reads its script from a pipe
 * one byte at a time, so sending the 2 KB of patterns with every call cost milliseconds. `[[ x == $P ]]`
 * matches extended globs whatever `extglob` says.
 */
export const RESTORE0 = '__agent_bash_restore0';
const LEAVE0 = '__agent_bash_leave0';
/**
 * A descriptor on a scratch file of the shell's own (unlinked at the start): the reset's listing is
 * written there and read back, because capturing it with `$(…)` forked the shell for every call (2-4 ms
 * of a call's ~10 here). Empty when the file could not be made: the listing then forks as before.
 */
const LISTFD0 = '__agent_bash_listfd0';
/** Its name, for the call's wrapper: the scratch descriptor is closed for the command (no child inherits it). */
export const SCRATCH_FD_VARIABLE = LISTFD0;
/**
 * `enable -a`'s exact text at the start (`-` if a builtin was disabled then): when the listing's
 * builtins part is this text, no builtin was disabled or added, and their loop is skipped.
 */
const BTEXT0 = '__agent_bash_btext0';
/** The scratch file could be made (else LISTFD0 is /dev/null, so it can always be closed in a call). */
const LISTOK0 = '__agent_bash_listok0';
/** `umask` at the start, put back by every reset. */
const UMASK0 = '__agent_bash_umask0';
/** The soft and hard limits at the start (ULIMITS's text): a reset that finds others fails. */
const ULIMIT0 = '__agent_bash_ulimit0';
const ULIMITS = '\\builtin ulimit -a; \\builtin ulimit -H -a';
/**
 * The variable every process the shell starts carries (exported and readonly from the start, exported
 * again by every reset): how a leftover that escaped the process tree is found (shellLeftovers.ts).
 */
export const SESSION_MARK = '__agent_bash_session_mark';

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
  // The locale names too: bash reads the next line in their character set (localeCharset.ts).
  return [...SENSITIVE_GLOBS, ...PARSING_LOCALE_NAMES].join('|');
}

/** `case NAME in <this>) ;;`: names the restore leaves alone. */
function leftAlonePattern(): string {
  return [...NOT_SENSITIVE, ...NOT_RESTORED].join('|');
}

/**
 * Startup lines (bash): snapshot into readonly variables the options as commands (`set +o; shopt -p`,
 * each behind `\\builtin`) and as the option lists (`$SHELLOPTS:$BASHOPTS`), the names of all
 * builtins (`enable -a`), the sensitive variables (`declare -p`, behind `\\builtin`), the names of
 * sensitive variables that are already readonly, and bash's own integer and nameref variables.
 * `n` is a per-start suffix for the loop variable.
 */
export function resetStartupScript(n: string, markValue: string): string {
  const name = `__agent_bash_n_${n}`;
  return [
    `\\builtin declare -rx ${SESSION_MARK}=${singleQuoted(markValue)}`,
    `${UMASK0}=$(\\builtin umask); ${ULIMIT0}="$(${ULIMITS}; \\builtin printf x)"; ${ULIMIT0}=\${${ULIMIT0}%x}`,
    `${READONLY0}=' '; ${VARIABLES0}=; ${RESTORE0}='@(${restoredPattern()})'; ${LEAVE0}='@(${leftAlonePattern()})'`,
    `for ${name} in $(\\builtin compgen -v); do case $${name} in ${leftAlonePattern()}) ;; ${restoredPattern()}) ` +
      // A plain set variable's declaration is written without a subshell (`@a` and `@Q`, as
      // `declare -p` would give it): a fork per variable was most of a shell's start. Arrays, namerefs
      // and variables declared without a value still ask `declare -p`.
      `case \${!${name}@a} in *r*) ${READONLY0}+="$${name} ";; *[aAn]*) ${VARIABLES0}+="\\builtin $(\\builtin declare -p "$${name}")"$'\\n';; ` +
      `*) if [[ -n \${!${name}+x} ]]; then ${name}a=\${!${name}@a}; ${VARIABLES0}+="\\builtin declare -\${${name}a:--} $${name}=\${!${name}@Q}"$'\\n'; ` +
      `else ${VARIABLES0}+="\\builtin $(\\builtin declare -p "$${name}")"$'\\n'; fi;; esac;; esac; done`,
    `${ATTRIBUTED0}=' '; for ${name} in $(\\builtin declare -i; \\builtin declare -n); do ${ATTRIBUTED0}+="\${${name}%%=*} "; done`,
    `${BUILTINS0}=; for ${name} in $(\\builtin enable -a); do case $${name} in enable|-n) ;; *) ${BUILTINS0}+="$${name} ";; esac; done`,
    `${BTEXT0}="$(\\builtin enable -a; \\builtin printf x)"; ${BTEXT0}=\${${BTEXT0}%x}; case $${BTEXT0} in *"enable -n "*) ${BTEXT0}=-;; esac`,
    `\\builtin unset ${name} ${name}a`,
    `${OPTIONS0}="$(\\builtin set +o; \\builtin shopt -p)"; ${OPTIONS0}="\\builtin \${${OPTIONS0}//$'\\n'/$'\\n'\\\\builtin }"`,
    `${SHOPTS0}="$SHELLOPTS:$BASHOPTS"`,
    // The scratch file: made in the shell's TMPDIR, opened, unlinked; only the descriptor is left.
    `${name}="\${TMPDIR:-/tmp}/.agent-bash-list-$$-$RANDOM$RANDOM"; ` +
      `if \\builtin exec {${LISTFD0}}>"$${name}" 2>/dev/null; then \\command rm -f -- "$${name}" 2>/dev/null; ${LISTOK0}=1; ` +
      `else ${LISTOK0}=; \\builtin exec {${LISTFD0}}</dev/null; fi; \\builtin unset ${name}`,
    `${RESET0}=${singleQuoted(resetBody())}`,
    `\\builtin readonly ${OPTIONS0} ${SHOPTS0} ${BUILTINS0} ${BTEXT0} ${VARIABLES0} ${READONLY0} ${ATTRIBUTED0} ${RESTORE0} ${LEAVE0} ${RESET0} ${LISTFD0} ${LISTOK0} ${UMASK0} ${ULIMIT0}`,
  ].join('\n');
}

/**
 * The first line of a call (bash), sent on its own: bash parses a line before running any of it, so
 * the aliases this line drops cannot touch the next one. Everything here is an assignment, a quoted
 * special builtin (found before functions in POSIX mode) or `\\builtin` once its function is gone.
 * Every trap goes first thing, so none can run (and define anything) while the reset works.
 */
export function resetFirstLine(): string {
  return (
    `POSIXLY_CORRECT=y; \\unset -f builtin unalias; \\trap - DEBUG RETURN ERR EXIT ${SIGNALS}; \\set +euxvk; ` +
    '\\builtin unalias -a; \\builtin shopt -u expand_aliases\n'
  );
}

/**
 * The wrapper variables the reset uses, with a placeholder each call replaces by its own suffix (in
 * memory: `${RESET0//__V__/suffix}`), so no command can make them readonly in advance.
 */
const SUFFIX_MARK = '__V__';
const PROBE = '__agent_bash_rprobe';
const RESET_VARIABLES = [
  '__agent_bash_rn',
  '__agent_bash_rf',
  '__agent_bash_rsec',
  '__agent_bash_rdis',
  '__agent_bash_rseen',
  '__agent_bash_rlist',
  '__agent_bash_rbtext',
  '__agent_bash_rulimit',
  PROBE,
] as const;
/**
 * Appended to the probe variable's name: a name every sensitive-name filter must let through (it
 * matches `*_PATH`). The listing's filter runs in bash's C code; should it ever let nothing through
 * (extended globs not in effect), the probe is missing and the reset fails: never a silent pass.
 */
const PROBE_TAIL = '_PATH';
/** The reset's code, kept in a readonly variable from the start (see RESTORE0 for why not sent each call). */
const RESET0 = '__agent_bash_reset0';

/**
 * The reset steps (bash), as one command whose status is 0 only when the session is back to its start
 * state. No process of its own (the listing goes through the scratch file); the check reads bash's
 * own option lists.
 */
function resetBody(): string {
  const [n, failed, section, disabled, seen, list, btext, ulimits, probe] = RESET_VARIABLES.map((name) => `${name}${SUFFIX_MARK}${name === PROBE ? PROBE_TAIL : ''}`);
  const fail = `|| ${failed}=1`;
  // One listing: every builtin (`enable NAME` / `enable -n NAME`) as a part of its own, then after `@F` the functions,
  // after `@A` the integer and nameref variables (set or only declared), after `@V` the set variables
  // whose names are sensitive: bash's own filter (`compgen -X`, extended globs on for it) picks them
  // out of all variables in C, where a loop of `[[ … == @(…) ]]` took ~15 µs a variable (4-5 ms a
  // call with a large environment). The probe variable must come through it. Function names may
  // hold glob characters: no globbing while the words are read.
  const rest =
    "\\builtin printf '%s\\n' @F; \\builtin compgen -A function; \\builtin printf '%s\\n' @A; " +
    `\\builtin declare -i; \\builtin declare -n; \\builtin printf '%s\\n' @V; \\builtin shopt -s extglob; \\builtin compgen -v -X "!$${RESTORE0}"`;
  // Written to the scratch file from its start through a fresh open of its descriptor, the builtins
  // part and the rest each ended by a NUL (no truncation: on a disk it cost ~200 µs; what an earlier,
  // longer listing left after the last NUL is never read), and read back part by part (a regular file:
  // bash reads it in blocks). Without the file, or when that fails, `$(…)` without the NULs: the
  // builtins then lead the list as its first part.
  const scratch = `/proc/self/fd/$${LISTFD0}`;
  const fill =
    `${list}=; ${btext}=; if ! { [[ -n $${LISTOK0} ]] && { \\builtin enable -a; \\builtin printf '\\0'; ${rest}; \\builtin printf '\\0'; ${ULIMITS}; \\builtin printf '\\0'; } 1<>${scratch} && ` +
    `{ IFS= \\builtin read -r -d '' ${btext}; \\builtin read -r -d '' ${list}; IFS= \\builtin read -r -d '' ${ulimits}; } <${scratch} && [[ -n $${btext} && -n $${list} ]]; }; ` +
    `then ${btext}=; ${list}=$(\\builtin enable -a; ${rest}); ${ulimits}="$(${ULIMITS}; \\builtin printf x)"; ${ulimits}=\${${ulimits}%x}; fi; ` +
    // The builtins exactly as at the start: their names are the start's and none is disabled.
    `if [[ $${btext} == "$${BTEXT0}" ]]; then ${btext}=; ${seen}=$${BUILTINS0}; fi; `;
  return (
    `${failed}=; ${section}=; ${disabled}=; ${seen}=; ${ulimits}=; IFS=$' \\t\\n'; ` +
    // The builtins the reset itself uses, then the options as the shell started (`set -k`, `noglob`,
    // `nocasematch` would change how the rest reads); this leaves the first line's POSIX mode. When
    // the option lists are the start's already, there is nothing to put back (`eval` of ~80 commands
    // costs ~0.3 ms).
    `\\builtin enable builtin cd compgen declare disown enable eval export hash printf read readonly set shopt trap ulimit umask unalias unset ${fail}; ` +
    // Leaving POSIX mode turns `inherit_errexit` and `shift_verbose` on: off again unless they were on.
    `${offUnlessAtStart('inherit_errexit')} ${offUnlessAtStart('shift_verbose')} ` +
    `[[ "$SHELLOPTS:$BASHOPTS" == "$${SHOPTS0}" ]] || \\builtin eval "$${OPTIONS0}"; ${probe}=1; ` +
    fill +
    `\\builtin set -f; for ${n} in $${btext} $${list}; do case $${n} in @F|@A|@V) ${section}=$${n};; *) case $${section} in ` +
    // Builtins (when not as at the start): the disabled ones are enabled again; the names must be the
    // start's (no `enable -f` one).
    `'') case $${n} in enable) ;; -n) ${disabled}=1;; *) ${seen}+="$${n} "; ` +
    `if [[ -n $${disabled} ]]; then \\builtin enable "$${n}" ${fail}; ${disabled}=; fi;; esac;; ` +
    `@F) \\builtin unset -f -- "$${n}" ${fail};; ` +
    // Namerefs go, integer attributes go (`declare -i x="5"` lines; bash's own are left alone).
    `@A) ${n}=\${${n}%%=*}; case $${n} in declare|-*) ;; *) case $${ATTRIBUTED0} in *" $${n} "*) ;; *) ` +
    `if [[ -R $${n} ]]; then \\builtin unset -n "$${n}" ${fail}; else \\builtin declare +i "$${n}" ${fail}; fi;; esac;; esac;; ` +
    // Sensitive variables (the filter's) are unset (and restored below); the readonly ones of the start stay.
    `@V) if [[ $${n} == "${probe}" ]]; then ${probe}=; elif [[ $${n} != $${LEAVE0} ]]; then ` +
    `case $${READONLY0} in *" $${n} "*) ;; *) \\builtin unset -v "$${n}" ${fail};; esac; fi;; ` +
    `esac;; esac; done; ` +
    // Limits cannot always be raised again (a hard one lowered): ones that differ fail the reset.
    `[[ $${ulimits} == "$${ULIMIT0}" ]] ${fail}; \\builtin umask "$${UMASK0}" ${fail}; ` +
    // No job of an earlier call is waited for or listed (its processes are gone: shellLeftovers.ts).
    `\\builtin disown -a 2>/dev/null; ` +
    // The probe was listed (and emptied above): the filter let sensitive names through.
    `[[ -z $${probe} ]] ${fail}; \\builtin unset -v ${probe}; ` +
    `\\builtin unalias -a; \\builtin hash -r; ` +
    `\\builtin unset -v POSIXLY_CORRECT ${fail}; \\builtin eval "$${VARIABLES0}" ${fail}; ` +
    // The options as the shell started: the two the reset set itself go back, then every option when
    // the lists still differ from the start's.
    `case :$${SHOPTS0}: in *:noglob:*) ;; *) \\builtin set +f;; esac; ${offUnlessAtStart('extglob')} ` +
    `[[ "$SHELLOPTS:$BASHOPTS" == "$${SHOPTS0}" ]] || \\builtin eval "$${OPTIONS0}"; ` +
    // Descriptors an earlier call opened (`exec 4>file`, a coprocess's) are closed: only stdin, the
    // output, the status pipe and the scratch file stay. Read from /proc (no process); the glob
    // follows the start's options again, and without /proc there is nothing to read. `\\exec` itself
    // (every function is gone by now): behind `builtin` the close would last for that command only.
    `if [[ -d /proc/$$/fd ]]; then for ${n} in /proc/$$/fd/*; do ${n}=\${${n}##*/}; case $${n} in 0|1|2|3|"$${LISTFD0}"|*[!0-9]*|'') ;; ` +
    `*) \\exec {${n}}>&- ${fail};; esac; done; fi; \\builtin export ${SESSION_MARK}; ` +
    // The check, without another process: the same builtins, options as at the start, nothing failed.
    // No function is left, whatever the listing said (`compgen` fails when it finds none).
    `[[ -z $${failed} && $${seen} == "$${BUILTINS0}" && "$SHELLOPTS:$BASHOPTS" == "$${SHOPTS0}" ]] && ! \\builtin compgen -A function >/dev/null`
  );
}

/** bash: turns shopt option `name` off unless the shell started with it on. */
function offUnlessAtStart(name: string): string {
  return `case :$${SHOPTS0}: in *:${name}:*) ;; *) \\builtin shopt -u ${name};; esac;`;
}

/** `text` as one single-quoted shell word. */
function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * The reset of a call (bash): `eval` of the code stored at the start, with the call's suffix `v` in its
 * variable names; a command whose status is 0 only when the session is back to its start state. Its
 * variables are added to `own` (unset after the call).
 */
export function resetScript(v: string, own: string[]): string {
  own.push(...RESET_VARIABLES.map((name) => `${name}_${v}${name === PROBE ? PROBE_TAIL : ''}`));
  return `\\builtin eval "\${${RESET0}//${SUFFIX_MARK}/_${v}}"`;
}
