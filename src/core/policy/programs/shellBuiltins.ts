// bash's builtins `echo`, `printf`, `pwd`, `type`, `true` and `false`, and Debian's `which` script, read with their
// own syntax (bash 5.2's `help echo`, `help printf`, `help pwd`, `help type`; `which` 's usage line):
// `echo` takes only leading `-n`/`-e`/`-E` clusters and prints every other word (`--` too);
// `printf -v NAME` assigns a variable (asks); `type`, `which`, `pwd` take plain switches. None of
// their words is a path they open.
import type { ArgWord } from './getopt';
import { parseArgs } from './getopt';
import { judgeBySpec, type ProgramJudgement, type ProgramModule } from './judge';
import { defineProgram } from './spec';

export const PRINTF_SPEC = defineProgram({
  name: 'printf', source: 'bash 5.2, `help printf`', prefixes: false, permute: false, operands: 'none',
  options: ['-v var @ask'],
});
export const PWD_SPEC = defineProgram({
  name: 'pwd', source: 'bash 5.2, `help pwd`', prefixes: false, permute: false, operands: 'none', options: ['-L', '-P'],
});
export const TYPE_SPEC = defineProgram({
  name: 'type', source: 'bash 5.2, `help type`', prefixes: false, permute: false, operands: 'none',
  options: ['-a', '-f', '-P', '-p', '-t'],
});
export const WHICH_SPEC = defineProgram({
  name: 'which', source: 'debianutils `which` (usage: which [-as] args)', prefixes: false, permute: false, operands: 'none',
  options: ['-a', '-s'],
});

function echo(args: readonly ArgWord[]): ProgramJudgement {
  void args;
  return { paths: [], canonical: [] };
}

export const echoProgram: ProgramModule = { examples: { allow: ['echo hi'], ask: ['echo hi > ../x'] }, names: ['echo'], judge: (_n, args) => echo(args) };
export const printfProgram: ProgramModule = { examples: { allow: ["printf '%s\\n' a"], ask: ['printf -v PATH x'] },
  names: ['printf'],
  spec: PRINTF_SPEC,
  // bash's printf reads options only before the format; a format starting with `-` needs `--`.
  judge: (name, args) => judgeBySpec(PRINTF_SPEC, name, args, parseArgs(PRINTF_SPEC, args)),
};
export const pwdProgram: ProgramModule = { examples: { allow: ['pwd'], ask: ['pwd -x'] }, names: ['pwd'], spec: PWD_SPEC, judge: (name, args) => judgeBySpec(PWD_SPEC, name, args) };
export const typeProgram: ProgramModule = { examples: { allow: ['type ls'], ask: ['type -x ls'] }, names: ['type'], spec: TYPE_SPEC, judge: (name, args) => judgeBySpec(TYPE_SPEC, name, args) };
export const whichProgram: ProgramModule = { examples: { allow: ['which git'], ask: ['which --bogus'] }, names: ['which'], spec: WHICH_SPEC, judge: (name, args) => judgeBySpec(WHICH_SPEC, name, args) };

/** bash's `true` and `false` ignore their arguments. */
export const trueFalseProgram: ProgramModule = { examples: { allow: ['true', 'false'], ask: ['true > ../x'] }, names: ['true', 'false'], judge: () => ({ paths: [], canonical: [] }) };
