// The poisoning forms of the session-reset tests, shared by the local executor's and the stdio MCP
// server's suites.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sessionReplacedNotice } from '../../../src/exec/persistentShell';

/** A poisoning call, then a probe whose output must be the clean one. */
export interface PoisonCase {
  name: string;
  poison: string;
  probe: string;
  /** The probe's output; EVIL stands for the directory of the fake programs. */
  expected: string;
  /** The probe's result starts with this notice (the shell was replaced). */
  notice?: string;
}

/** Fake `ls`, `echo`, an env file and a preload library path, all printing POISONED. */
export function makeEvil(dir: string): string {
  const evil = path.join(dir, 'evil');
  mkdirSync(evil, { recursive: true });
  for (const name of ['ls', 'echo', 'cat']) {
    writeFileSync(path.join(evil, name), '#!/bin/sh\necho POISONED\n');
    chmodSync(path.join(evil, name), 0o755);
  }
  writeFileSync(path.join(evil, 'env.sh'), 'echo POISONED\n');
  return evil;
}

const TMOUT_PAYLOAD = '\necho POISONED; touch POISONED'.repeat(2000);
const TMOUT_PROBE = `printf %s '${TMOUT_PAYLOAD}' | wc -c`;

export const POISON_CASES: readonly PoisonCase[] = [
  { name: 'function', poison: 'ls() { echo POISONED; }; echo() { builtin echo POISONED; }', probe: 'ls -d .; echo clean', expected: '.\nclean\n' },
  { name: 'alias + expand_aliases', poison: "shopt -s expand_aliases; alias ls='echo POISONED' echo='echo POISONED'", probe: 'ls -d .; echo clean', expected: '.\nclean\n' },
  { name: 'trap DEBUG', poison: "trap 'echo POISONED' DEBUG", probe: 'echo clean', expected: 'clean\n' },
  { name: 'trap DEBUG + extdebug', poison: "shopt -s extdebug; trap 'ls() { echo POISONED; }' DEBUG", probe: 'ls -d .', expected: '.\n' },
  { name: 'trap RETURN', poison: "trap 'echo POISONED' RETURN", probe: 'source /dev/null; echo clean', expected: 'clean\n' },
  { name: 'trap EXIT / ERR / signal', poison: "trap 'echo POISONED' EXIT ERR CHLD", probe: 'false; /bin/true; echo "clean[$(trap -p)]"', expected: 'clean[]\n' },
  {
    name: 'set -o / shopt -s',
    poison: 'set -o noglob -o nounset -o allexport -o keyword; shopt -s nullglob failglob dotglob nocaseglob globstar extglob nocasematch lastpipe',
    probe: 'echo "$-"; shopt -p nullglob failglob dotglob nocaseglob globstar extglob nocasematch lastpipe expand_aliases | tr "\\n" " "; echo',
    expected: 'FRESH_OPTIONS',
  },
  { name: 'set -o posix', poison: 'set -o posix', probe: 'shopt -o -p posix', expected: 'set +o posix\n' },
  { name: 'set -e', poison: 'set -e', probe: 'false; echo clean', expected: 'clean\n' },
  { name: 'PATH=', poison: 'PATH=EVIL:$PATH', probe: 'ls -d .; echo clean; cat /dev/null', expected: '.\nclean\n' },
  { name: 'export PATH=', poison: 'export PATH=EVIL:$PATH', probe: 'ls -d .; env | grep -c "^PATH=EVIL" || true', expected: '.\n0\n' },
  { name: 'printf -v PATH', poison: 'printf -v PATH %s EVIL:"$PATH"', probe: 'ls -d .', expected: '.\n' },
  { name: 'unset PATH', poison: 'unset PATH', probe: 'ls -d .', expected: '.\n' },
  { name: 'export -n PATH', poison: 'export -n PATH', probe: 'env | grep -c "^PATH="', expected: '1\n' },
  { name: 'hash -p', poison: 'hash -p EVIL/ls ls', probe: 'ls -d .', expected: '.\n' },
  { name: 'BASH_CMDS', poison: 'BASH_CMDS[ls]=EVIL/ls', probe: 'ls -d .', expected: '.\n' },
  { name: 'enable -n', poison: 'enable -n echo cd; echo() { builtin printf "POISONED\\n"; }', probe: 'echo clean; type -t echo', expected: 'clean\nbuiltin\n' },
  { name: 'IFS=', poison: 'IFS=x', probe: 'v="a b"; printf "[%s]" $v; printf "\\n"', expected: '[a][b]\n' },
  { name: 'BASH_ENV', poison: 'export BASH_ENV=EVIL/env.sh', probe: 'bash -c "echo clean"', expected: 'clean\n' },
  { name: 'ENV', poison: 'export ENV=EVIL/env.sh', probe: 'sh -i -c "echo clean" 2>/dev/null </dev/null || sh -c "echo clean"', expected: 'clean\n' },
  { name: 'PROMPT_COMMAND / PS4', poison: "PROMPT_COMMAND='echo POISONED'; PS4='$(echo POISONED)'", probe: 'echo "clean[${PROMPT_COMMAND-}]"', expected: 'clean[]\n' },
  { name: 'LD_PRELOAD', poison: 'export LD_PRELOAD=EVIL/nothing.so', probe: '/bin/echo clean 2>&1', expected: 'clean\n' },
  { name: 'GIT_CONFIG_COUNT', poison: 'export GIT_CONFIG_COUNT=0 GIT_DIR=EVIL', probe: 'echo "$GIT_CONFIG_COUNT[${GIT_DIR-}]"', expected: 'GIT_COUNT[]\n' },
  { name: 'HOME', poison: 'HOME=EVIL', probe: 'echo ~ | grep -c EVIL || true', expected: '0\n' },
  { name: 'command_not_found_handle', poison: 'command_not_found_handle() { echo POISONED; }', probe: 'no_such_command_xyz 2>/dev/null; echo "clean $?"', expected: 'clean 127\n' },
  { name: 'nameref', poison: 'declare -n ref=PATH', probe: 'ref=EVIL; ls -d .', expected: '.\n' },
  { name: 'integer attribute', poison: 'declare -i n', probe: 'n=\'a[$(echo POISONED >&2)]\'; echo "$n"', expected: 'a[$(echo POISONED >&2)]\n' },
  { name: 'readonly PATH', poison: 'readonly PATH', probe: 'echo "clean[$X]"', expected: 'clean[]\n', notice: sessionReplacedNotice('reset') },
  { name: 'readonly function', poison: 'ls() { echo POISONED; }; readonly -f ls', probe: 'ls -d .; echo "[$X]"', expected: '.\n[]\n', notice: sessionReplacedNotice('reset') },
  { name: 'readonly IFS', poison: 'readonly IFS', probe: 'echo "clean[$X]"', expected: 'clean[]\n', notice: sessionReplacedNotice('reset') },
  // bash's default timeout for `read` (which reads each call's block, persistentShell.ts `framed`): a
  // read cut short must not leave the rest of the block to be read as script. The probe is long, so
  // its block arrives in pieces; its quoted text holds lines that would print POISONED if run.
  { name: 'TMOUT', poison: 'TMOUT=0.0001', probe: TMOUT_PROBE, expected: `${TMOUT_PAYLOAD.length}\n` },
  { name: 'export TMOUT', poison: 'export TMOUT=0.0001', probe: `${TMOUT_PROBE}; echo "[\${TMOUT-unset}]"`, expected: `${TMOUT_PAYLOAD.length}\n[unset]\n` },
  { name: 'readonly TMOUT', poison: 'readonly TMOUT=0.0001', probe: `${TMOUT_PROBE}; echo "[$X]"`, expected: `${TMOUT_PAYLOAD.length}\n[]\n`, notice: sessionReplacedNotice('refused') },
  // The reset's scratch file (sessionReset.ts): closed, or swapped for a file that lists nothing.
  {
    name: 'scratch descriptor closed',
    poison: 'ls() { echo POISONED; }; eval "exec ${__agent_bash_listfd0:-9}>&-"',
    probe: 'ls -d .; echo "[$X]"',
    expected: '.\n[kept]\n',
  },
  {
    name: 'scratch descriptor swapped for /dev/null',
    poison: 'ls() { echo POISONED; }; eval "exec ${__agent_bash_listfd0:-9}</dev/null"',
    probe: 'ls -d .; echo "[$X]"',
    expected: '.\n[kept]\n',
  },
];
