// `readlink`: options from `readlink --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'readlink',
  source: 'GNU coreutils 9.1, `readlink --help`',
  operands: 'reads',
  options: [
    '-f, --canonicalize',
    '-e, --canonicalize-existing',
    '-m, --canonicalize-missing',
    '-n, --no-newline',
    '-q, --quiet',
    '-s, --silent',
    '-v, --verbose',
    '-z, --zero',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of readlink (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['readlink -f src'], ask: ['readlink -f /etc'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
