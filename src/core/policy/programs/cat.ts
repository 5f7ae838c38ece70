// `cat`: options from `cat --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'cat',
  source: 'GNU coreutils 9.1, `cat --help`',
  operands: 'reads',
  options: [
    '-A, --show-all',
    '-b, --number-nonblank',
    '-e',
    '-E, --show-ends',
    '-n, --number',
    '-s, --squeeze-blank',
    '-t',
    '-T, --show-tabs',
    '-u',
    '-v, --show-nonprinting',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of cat (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['cat README.md', 'cat -n a.txt b.txt'], ask: ['cat ../outside.txt', 'cat /etc/passwd'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
