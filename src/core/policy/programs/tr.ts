// `tr`: options from `tr --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram } from './judge';

export const spec = defineProgram({
  name: 'tr',
  source: 'GNU coreutils 9.1, `tr --help`',
  operands: 'none',
  options: [
    '-c, -C, --complement',
    '-d, --delete',
    '-s, --squeeze-repeats',
    '-t, --truncate-set1',
    '--help',
    '--version',
  ],
});

export const program = simpleProgram(spec);
