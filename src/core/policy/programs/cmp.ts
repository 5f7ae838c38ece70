// `cmp`: options from `cmp --help` of GNU diffutils 3.8 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'cmp',
  source: 'GNU diffutils 3.8, `cmp --help`',
  operands: 'reads',
  options: [
    '-b, --print-bytes',
    // Hidden: an older name of -b (found by the prefix test: `cmp --p` is ambiguous).
    '-c, --print-chars',
    '-i, --ignore-initial=SKIP',
    '-l, --verbose',
    '-n, --bytes=LIMIT',
    '-s, --quiet, --silent',
    '--help',
    '-v, --version',
  ],
});

/** What the policy must allow and must ask of cmp (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['cmp a.txt b.txt'], ask: ['cmp a.txt /etc/hosts'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
