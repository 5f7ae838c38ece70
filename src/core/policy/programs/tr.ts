// `tr`: options from `tr --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'tr',
  source: 'GNU coreutils 9.1, `tr --help`',
  operands: 'none',
  options: [
    '-c, -C, --complement',
    '-d, --delete',
    '-s, --squeeze-repeats',
    '-t, --truncate-set1',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of tr (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['tr a-z A-Z'], ask: ['tr --bogus'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
