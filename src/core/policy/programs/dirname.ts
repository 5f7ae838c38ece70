// `dirname`: options from `dirname --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram } from './judge';

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

export const program = simpleProgram(spec);
