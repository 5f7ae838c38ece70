import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PolicyRule, ShellAnalyzer } from '../../../../../src/core/contracts';
import { decide } from '../../../../../src/core/policy/policy';
import { envPrefixRisk, isInertEnvName, isSensitiveVariable, VARIABLE_REASON } from '../../../../../src/core/policy/analysis/sensitiveVariables';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';
import { arithmeticAssignment } from '../../../../../src/core/policy/analysis/variableWrites';
import { TEST_EXPANDER } from '../testExpander';

// A real folder: words with brace or glob syntax are expanded by bash in it.
const WS = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-vars-'));
after(() => rmSync(WS, { recursive: true, force: true }));
const CTX = { cwd: WS, workspaceRoots: [WS], expander: TEST_EXPANDER };
/** Everything is allowed by rule: only the variable check can make a line ask. */
const ALLOW_ALL: PolicyRule[] = [{ match: '*', approval: 'allow' }];

/**
 * Every form that changes a variable, with `NAME` for its name. bash decides whether the form changes
 * the variable (its value, whether it is set, or whether it is exported); the test checks bash agrees
 * before it checks the policy.
 */
const FORMS: readonly string[] = [
  'NAME=/x',
  'NAME+=:x',
  'true; NAME=/x',
  'export NAME=/x',
  'export "NAME=/x"',
  'export "NAME"=/x',
  "export 'NAME'=/x",
  'export \\NAME=/x',
  'command export NAME=/x',
  'declare NAME=/x',
  'declare -x NAME=/x',
  'typeset NAME=/x',
  'readonly NAME=/x',
  'declare -g NAME=/x',
  'printf -v NAME %s /x',
  'printf -vNAME %s /x',
  'printf -v "NAME" /x',
  'builtin printf -v NAME %s /x',
  'command printf -v NAME %s /x',
  'read NAME <<< /x',
  'read -r NAME <<< /x',
  'read -r -a NAME <<< /x',
  'read -raNAME <<< /x',
  'read -p "" -r NAME <<< /x',
  'read -r -- NAME <<< /x',
  'LC_ALL=C read -r NAME <<< /x',
  'mapfile NAME <<< /x',
  'mapfile -t NAME <<< /x',
  'mapfile -t -- NAME <<< /x',
  'readarray -t NAME <<< /x',
  'readarray -n 1 NAME <<< /x',
  'for NAME in /x; do :; done',
  'for NAME in /x; do break; done',
  'select NAME in /x; do break; done <<< 1',
  'getopts a NAME -a',
  'getopts -- a NAME -a',
  'sleep 0 & wait -n -p NAME',
  'let NAME=5',
  'let "NAME += 1"',
  '(( NAME=5 ))',
  '((NAME++))',
  ': $(( NAME=5 ))',
  ': $(( ++NAME ))',
  ': $[ NAME=5 ]',
  'for (( NAME=5; 0; )); do :; done',
  'a[NAME=5]=1',
  '[[ 1 -eq NAME=1 ]]',
  'exec {NAME}>/dev/null',
  'true {NAME}>/dev/null',
  'unset NAME',
  'unset -v NAME',
  'export -n NAME',
  'declare +x NAME',
  'eval "NAME=/x"',
  "eval 'printf -v NAME %s /x'",
  'n=NAME; printf -v "$n" %s /x',
  'n=NAME; read -r "$n" <<< /x',
  'n=NAME; declare "$n=/x"',
  'n=NAME; export "$n"=/x',
  'n=NAME; unset "$n"',
  'declare -n r=NAME; r=/x',
];

/** Forms that only change a variable that is unset to begin with. */
const UNSET_FORMS: readonly string[] = [': ${NAME:=/x}', ': ${NAME=/x}'];

const VARIABLES: readonly string[] = ['PATH', 'HOME', 'IFS', 'BASH_ENV', 'LD_PRELOAD', 'GIT_EXTERNAL_DIFF', 'npm_config_script_shell', 'LESSOPEN', 'PYTHONPATH', 'TMPDIR', 'GCONV_PATH', 'PROMPT_COMMAND', 'BASH_CMDS', 'NODE_OPTIONS', 'XDG_CONFIG_HOME', 'TMOUT'];

/** Runs `line` under bash and says whether V's value, set-ness or export changed (builtins only: PATH may be gone). */
function bashChanges(line: string, name: string, initiallySet: boolean): boolean {
  const probe = `{ builtin declare -p ${name} 2>&1; [[ $(builtin export -p) == *"declare -x ${name}="* ]] && builtin echo exported; }`;
  const script = `__b=$(${probe}); ${line}\n__a=$(${probe}); [[ "$__b" != "$__a" ]] && builtin echo CHANGED || builtin echo SAME`;
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/root' };
  if (initiallySet && !(name in env)) env[name] = '/orig';
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { env, encoding: 'utf8' });
  return r.stdout.trim().split('\n').pop() === 'CHANGED';
}

describe('core/policy/sensitiveVariables: any change to a variable that decides what runs asks', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const decideLine = (line: string) => decide(analyzer.analyze(line), ALLOW_ALL, CTX);

  it('classifies the listed names and families as sensitive, ordinary names as not', () => {
    for (const name of [
      'PATH', 'HOME', 'IFS', 'ENV', 'BASH_ENV', 'CDPATH', 'GLOBIGNORE', 'PS0', 'PS1', 'PS2', 'PS4', 'PROMPT_COMMAND', 'HISTFILE',
      'SHELLOPTS', 'BASHOPTS', 'BASH_CMDS', 'BASH_ALIASES', 'BASH_XTRACEFD', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES',
      'NODE_OPTIONS', 'GIT_DIR', 'GIT_TRACE2_EVENT', 'LESS', 'LESSOPEN', 'LESSKEY', 'PAGER', 'MANPAGER', 'EDITOR', 'VISUAL',
      'GCONV_PATH', 'TMPDIR', 'npm_config_script_shell', 'NPM_CONFIG_SCRIPT_SHELL', 'Npm_Config_Git', 'PYTHONPATH', 'PYTHONSTARTUP',
      'PERL5OPT', 'PERL5LIB', 'RUBYOPT', 'XDG_CONFIG_HOME', 'ZDOTDIR', 'BROWSER', 'POSIXLY_CORRECT', 'TAR_OPTIONS', 'GLIBC_TUNABLES',
      'JAVA_TOOL_OPTIONS', 'RIPGREP_CONFIG_PATH', 'http_proxy', 'HTTPS_PROXY', 'SSH_ASKPASS', 'GH_PAGER', 'CFLAGS', 'CC', 'SHELL', 'TMOUT', 'histchars',
    ]) {
      assert.equal(isSensitiveVariable(name), true, name);
    }
    for (const name of ['f', 'line', 'i', 'x', 'OUT', 'count', 'NODE_ENV', 'REPLY', 'MAPFILE', 'files', 'DIR', 'result']) {
      assert.equal(isSensitiveVariable(name), false, name);
    }
  });

  it('bash confirms each form changes each variable, and the policy asks naming the variable', function () {
    this.timeout(400_000); // one bash per line: 58 s on a busy 2-core machine, 119 s under heavier load
    let checked = 0;
    for (const name of VARIABLES) {
      for (const form of [...FORMS, ...UNSET_FORMS]) {
        const line = form.replace(/NAME/g, name);
        const initiallySet = !UNSET_FORMS.includes(form);
        // bash is the judge: a form that does not change this variable proves nothing here.
        if (!bashChanges(line, name, initiallySet)) {
          // Only the arithmetic forms may fail to change a variable whose value is not a number, and
          // `${NAME:=…}` one that bash or the test's environment already set.
          assert.ok(/\(\(|\$\[|let|a\[|-eq|wait/.test(form) || !initiallySet || name === 'BASH_CMDS', `bash did not change ${name} with ${line}`);
          continue;
        }
        const d = decideLine(line);
        assert.equal(d.decision, 'prompt', `${line}: ${d.reason}`);
        const dynamicForm = /\$n|-n r/.test(form);
        assert.ok(dynamicForm ? /run time|later assignments|`n`/.test(d.reason) : d.reason.includes(`\`${name}\``), `${line}: ${d.reason}`);
        checked++;
      }
    }
    assert.ok(checked > VARIABLES.length * 40, `only ${checked} lines were checked`);
  });

  it('the reason names the form', () => {
    const cases: Array<[string, string]> = [
      ['printf -v PATH %s /x', VARIABLE_REASON.change('PATH', '`printf -v`')],
      ['read -r HOME <<< /x', VARIABLE_REASON.change('HOME', '`read`')],
      ['mapfile -t LD_PRELOAD < f', VARIABLE_REASON.change('LD_PRELOAD', '`mapfile`')],
      ['for PATH in a; do ls; done', VARIABLE_REASON.change('PATH', '`for PATH in`')],
      ['select IFS in a; do :; done', VARIABLE_REASON.change('IFS', '`select IFS in`')],
      ['getopts ab GIT_DIR', VARIABLE_REASON.change('GIT_DIR', '`getopts`')],
      ['(( PATH=1 ))', VARIABLE_REASON.change('PATH', '`(( ))`')],
      ['echo $(( HOME=1 ))', VARIABLE_REASON.change('HOME', '`$(( ))`')],
      ['let TMPDIR=1', VARIABLE_REASON.change('TMPDIR', '`let`')],
      ['unset PATH', VARIABLE_REASON.change('PATH', '`unset`')],
      ['export -n PATH', VARIABLE_REASON.change('PATH', '`export -n`')],
      ['local PATH=/x', VARIABLE_REASON.change('PATH', '`local`')],
      ['PATH=/x', VARIABLE_REASON.change('PATH', 'an assignment')],
      ['exec {PATH}>/dev/null', VARIABLE_REASON.change('PATH', '`{PATH}>` redirection')],
      [': ${BASH_ENV:=x}', VARIABLE_REASON.change('BASH_ENV', '`${BASH_ENV:=…}`')],
      ['printf -v "$n" x', VARIABLE_REASON.dynamicName('`printf -v`')],
      ['read "$n"', VARIABLE_REASON.dynamicName('`read`')],
      ['declare -n r=x', VARIABLE_REASON.nameref('`declare -n`')],
      ['mapfile -C "rm -rf x" -c 1 lines < f', VARIABLE_REASON.callback('`mapfile -C`')],
      ['set -k; ls LD_PRELOAD=./x.so', VARIABLE_REASON.shellOption('set -k')],
      ['set -o allexport', VARIABLE_REASON.shellOption('set -o allexport')],
      ["trap 'echo x' DEBUG", VARIABLE_REASON.commandHook('trap … DEBUG')],
      ["trap 'echo x' RETURN", VARIABLE_REASON.commandHook('trap … RETURN')],
      ['shopt -s extdebug', VARIABLE_REASON.commandHook('shopt -s extdebug')],
      ['set -T', VARIABLE_REASON.commandHook('set -T')],
      ['set -o functrace', VARIABLE_REASON.commandHook('set -o functrace')],
    ];
    for (const [line, why] of cases) {
      const d = decideLine(line);
      assert.equal(d.decision, 'prompt', line);
      assert.ok(d.reason.includes(why), `${line}: ${d.reason}`);
    }
  });

  it('`set -k` really turns a later argument into an environment setting (bash)', () => {
    const r = spawnSync('bash', ['--norc', '-c', 'set -k; env X_PROBE=1 | grep -c "^X_PROBE="; sh -c "echo \\$Y_PROBE" Y_PROBE=2'], { encoding: 'utf8' });
    assert.equal(r.stdout, '1\n2\n');
  });

  it('ordinary variables, loops and reads stay allowable', () => {
    for (const line of [
      'for f in a b; do echo "$f"; done',
      'read -r line <<< x',
      'x=1; echo "$x"',
      'export FOO=1',
      'export NODE_ENV=test',
      'printf -v out %s x',
      'printf "%s\\n" "$x"',
      'mapfile -t lines < f',
      'readarray lines < f',
      'unset x',
      'declare -x FOO=1',
      'select opt in a b; do break; done',
      'getopts ab opt',
      'echo $(( 1 + 2 ))',
      'set -e',
      'set -- a b',
      'set -euo pipefail',
    ]) {
      const d = decideLine(line);
      const ok = d.decision === 'allow' || !/changes|run time|environment|later assignments/.test(d.reason);
      assert.ok(ok, `${line}: ${d.reason}`);
    }
    // `printf -v` asks whatever the name: printf's spec reads `-v` as an assignment (the built-in list has no `printf -v`).
    for (const line of ['for f in a b; do echo "$f"; done', 'read -r line <<< x', 'export FOO=1', 'mapfile -t lines < f', 'set -euo pipefail']) {
      assert.equal(decideLine(line).decision, 'allow', line);
    }
  });

  it('arithmetic assignment finds assignments, not reads', () => {
    assert.equal(arithmeticAssignment('PATH=1'), 'PATH');
    assert.equal(arithmeticAssignment(' PATH += 1'), 'PATH');
    assert.equal(arithmeticAssignment('++HOME'), 'HOME');
    assert.equal(arithmeticAssignment('IFS--'), 'IFS');
    assert.equal(arithmeticAssignment('BASH_CMDS[1] = 2'), 'BASH_CMDS');
    assert.equal(arithmeticAssignment('PATH == 1'), undefined);
    assert.equal(arithmeticAssignment('x = PATH'), undefined);
  });
});

describe('core/policy/sensitiveVariables: environment prefixes are an allowlist', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const decideLine = (line: string) => decide(analyzer.analyze(line), ALLOW_ALL, CTX);

  it('inert names are auto-approved in front of a command and inside `env`', () => {
    for (const line of ['IFS= read -r line < f', 'IFS=, read -r a b <<< "x,y"', 'LANG=C ls', 'LC_ALL=C sort f', 'TZ=UTC date', 'NO_COLOR=1 FORCE_COLOR=0 ls', 'env LC_ALL=C.UTF-8 ls', 'COLUMNS=80 LINES=24 ls', 'CI=1 ls', 'TERM=dumb ls']) {
      assert.equal(decideLine(line).decision, 'allow', line);
    }
    for (const name of ['LANG', 'LC_ALL', 'LC_MESSAGES', 'TZ', 'NO_COLOR', 'CI', 'TERM', 'COLUMNS']) assert.equal(isInertEnvName(name), true, name);
  });

  it('any other name asks, naming it', () => {
    for (const [line, name] of [
      ['FOO=1 ls', 'FOO'],
      ['GIT_TRACE2_EVENT=/tmp/x git status', 'GIT_TRACE2_EVENT'],
      ['LESS=+!id less f', 'LESS'],
      ['GCONV_PATH=. iconv -f x f', 'GCONV_PATH'],
      ['TMPDIR=/etc sort f', 'TMPDIR'],
      ['env FOO=1 ls', 'FOO'],
      ['LANG=C MY_TOOL_X=1 ls', 'MY_TOOL_X'],
      ['POSIXLY_CORRECT=1 ls -l x', 'POSIXLY_CORRECT'],
      ['DEBUG=1 ls', 'DEBUG'],
      ['IFS=/ ls', 'IFS'],
      ['time PATH=. ls', 'PATH'],
      ['time -p FOO=1 ls', 'FOO'],
      ['IFS=/ read -r a; PATH=/x read -r b', 'PATH'],
    ] as const) {
      const d = decideLine(line);
      assert.equal(d.decision, 'prompt', line);
      assert.ok(d.reason.includes(`\`${name}\``), `${line}: ${d.reason}`);
    }
    assert.equal(envPrefixRisk(['FOO=1']), VARIABLE_REASON.envPrefix('FOO'));
    assert.equal(envPrefixRisk(['LANG=C', 'LC_ALL=C']), undefined);
  });
});
