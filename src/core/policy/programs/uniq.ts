// `uniq`: options from `uniq --help` of GNU coreutils 9.1 on this machine (Debian 12). Its second
// operand is an OUTPUT file it writes (`uniq in out`).
import { parseArgs } from './getopt';
import { judgeBySpec, SPEC_REASON, type ProgramModule, type ProgramExamples } from './judge';
import { defineProgram } from './spec';

export const spec = defineProgram({
  name: 'uniq',
  source: 'GNU coreutils 9.1, `uniq --help`',
  operands: 'reads',
  options: [
    '-c, --count',
    '-d, --repeated',
    '-D',
    '--all-repeated[=METHOD]',
    '-f, --skip-fields=N',
    '--group[=METHOD]',
    '-i, --ignore-case',
    '-s, --skip-chars=N',
    '-u, --unique',
    '-z, --zero-terminated',
    '-w, --check-chars=N',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of uniq (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['uniq -c a.txt'], ask: ['uniq a.txt out.txt'] };

export const program: ProgramModule = {
  examples: EXAMPLES,
  names: ['uniq'],
  spec,
  judge(name, args) {
    const parsed = parseArgs(spec, args);
    const j = judgeBySpec(spec, name, args, parsed);
    const output = parsed.operands[1] as (typeof parsed.operands)[number] | undefined;
    if (output) {
      j.reason ??= SPEC_REASON.operandWrites(name, 'second operand (the output file)');
      const p = j.paths.find((x) => x.index === output.index);
      if (p) p.writes = true;
    }
    return j;
  },
};
