// `df`: options from `df --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram } from './judge';

export const spec = defineProgram({
  name: 'df',
  source: 'GNU coreutils 9.1, `df --help`',
  operands: 'reads',
  options: [
    '-a, --all',
    '-B, --block-size=SIZE',
    '-h, --human-readable',
    '-H, --si',
    '-i, --inodes',
    '-k',
    '-l, --local',
    '--no-sync',
    '--output[=FIELD_LIST]',
    '-P, --portability',
    '--sync',
    '--total',
    '-t, --type=TYPE',
    '-T, --print-type',
    '-x, --exclude-type=TYPE',
    '-v',
    '--help',
    '--version',
  ],
});

export const program = simpleProgram(spec);
