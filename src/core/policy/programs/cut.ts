// `cut`: options from `cut --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram } from './judge';

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

export const program = simpleProgram(spec);
