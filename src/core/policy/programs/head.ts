// `head`: options from `head --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'head',
  source: 'GNU coreutils 9.1, `head --help`',
  numeric: true,
  operands: 'reads',
  options: [
    '-c, --bytes=NUM',
    '-n, --lines=NUM',
    '-q, --quiet, --silent',
    '-v, --verbose',
    '-z, --zero-terminated',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of head (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['head -n 5 README.md'], ask: ['head ../x'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
