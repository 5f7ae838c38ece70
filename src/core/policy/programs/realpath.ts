// `realpath`: options from `realpath --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'realpath',
  source: 'GNU coreutils 9.1, `realpath --help`',
  operands: 'reads',
  options: [
    '-e, --canonicalize-existing',
    '-m, --canonicalize-missing',
    '-L, --logical',
    '-P, --physical',
    '-q, --quiet',
    '--relative-to=DIR @reads',
    '--relative-base=DIR @reads',
    '-s, --strip, --no-symlinks',
    '-z, --zero',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of realpath (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['realpath src/a.ts'], ask: ['realpath ../x'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
