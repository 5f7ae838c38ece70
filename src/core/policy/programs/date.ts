// `date`: options from `date --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram } from './judge';

export const spec = defineProgram({
  name: 'date',
  source: 'GNU coreutils 9.1, `date --help`',
  operands: 'none',
  options: [
    '-d, --date=STRING',
    '--debug',
    '-f, --file=DATEFILE @reads',
    '-I[FMT], --iso-8601[=FMT]',
    '--resolution',
    '-R, --rfc-email',
    '--rfc-3339=FMT',
    '-r, --reference=FILE @reads',
    '-s, --set=STRING @ask',
    '-u, --utc, --universal',
    '--help',
    '--version',
  ],
});

export const program = simpleProgram(spec);
