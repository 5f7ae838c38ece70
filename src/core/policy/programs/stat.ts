// `stat`: options from `stat --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'stat',
  source: 'GNU coreutils 9.1, `stat --help`',
  operands: 'reads',
  options: [
    '-L, --dereference',
    '-f, --file-system',
    '--cached=MODE',
    '-c, --format=FORMAT',
    '--printf=FORMAT',
    '-t, --terse',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of stat (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['stat README.md'], ask: ['stat /etc/passwd'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
