// `cut`: options from `cut --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'cut',
  source: 'GNU coreutils 9.1, `cut --help`',
  operands: 'reads',
  options: [
    '-b, --bytes=LIST',
    '-c, --characters=LIST',
    '-d, --delimiter=DELIM',
    '-f, --fields=LIST',
    '-n',
    '--complement',
    '-s, --only-delimited',
    '--output-delimiter=STRING',
    '-z, --zero-terminated',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of cut (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['cut -d, -f1 a.txt'], ask: ['cut -f1 ../x'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
