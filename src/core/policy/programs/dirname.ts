// `dirname`: options from `dirname --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'dirname',
  source: 'GNU coreutils 9.1, `dirname --help`',
  operands: 'none',
  options: [
    '-z, --zero',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of dirname (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['dirname src/a.ts'], ask: ['dirname --bogus x'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
