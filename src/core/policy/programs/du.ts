// `du`: options from `du --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'du',
  source: 'GNU coreutils 9.1, `du --help`',
  operands: 'reads',
  options: [
    '-0, --null',
    '-a, --all',
    '--apparent-size',
    '-B, --block-size=SIZE',
    '-b, --bytes',
    '-c, --total',
    '-D, --dereference-args',
    '-d, --max-depth=N',
    '--files0-from=F @fileList',
    '-H',
    '-h, --human-readable',
    '--inodes',
    '-k',
    '-L, --dereference',
    '-l, --count-links',
    '-m',
    '-P, --no-dereference',
    '-S, --separate-dirs',
    '--si',
    '-s, --summarize',
    '-t, --threshold=SIZE',
    '--time[=WORD]',
    '--time-style=STYLE',
    '-X, --exclude-from=FILE @reads',
    '--exclude=PATTERN',
    '-x, --one-file-system',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of du (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['du -sh src'], ask: ['du -sh ..'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
