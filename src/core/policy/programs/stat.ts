// `stat`: options from `stat --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram } from './judge';

export const spec = defineProgram({
  name: 'stat',
  source: 'GNU coreutils 9.1, `stat --help`',
  operands: 'reads',
  options: [
    '-L, --dereference',
    '-f, --file-system',
    '--cached=MODE',
    '-c, --format=FORMAT',
    '--printf=FORMAT',
    '-t, --terse',
    '--help',
    '--version',
  ],
});

export const program = simpleProgram(spec);
