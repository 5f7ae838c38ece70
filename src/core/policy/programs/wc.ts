// `wc`: options from `wc --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram } from './judge';

export const spec = defineProgram({
  name: 'wc',
  source: 'GNU coreutils 9.1, `wc --help`',
  operands: 'reads',
  options: [
    '-c, --bytes',
    '-m, --chars',
    '-l, --lines',
    '--files0-from=F @fileList',
    '-L, --max-line-length',
    '-w, --words',
    '--help',
    '--version',
  ],
});

export const program = simpleProgram(spec);
