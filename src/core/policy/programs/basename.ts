// `basename`: options from `basename --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'basename',
  source: 'GNU coreutils 9.1, `basename --help`',
  operands: 'none',
  options: [
    '-a, --multiple',
    '-s, --suffix=SUFFIX',
    '-z, --zero',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of basename (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['basename src/a.ts .ts'], ask: ['basename --bogus x'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
