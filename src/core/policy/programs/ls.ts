// `ls`: options from `ls --help` of GNU coreutils 9.1 on this machine (Debian 12). None writes or runs.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'ls',
  source: 'GNU coreutils 9.1, `ls --help`',
  operands: 'reads',
  options: [
    '-a, --all', '-A, --almost-all', '--author', '-b, --escape', '--block-size=SIZE', '-B, --ignore-backups', '-c', '-C',
    '--color[=WHEN]', '-d, --directory', '-D, --dired', '-f', '-F, --classify[=WHEN]', '--file-type', '--format=WORD',
    '--full-time', '-g', '--group-directories-first', '-G, --no-group', '-h, --human-readable', '--si',
    '-H, --dereference-command-line', '--dereference-command-line-symlink-to-dir', '--hide=PATTERN', '--hyperlink[=WHEN]',
    '--indicator-style=WORD', '-i, --inode', '-I, --ignore=PATTERN', '-k, --kibibytes', '-l', '-L, --dereference', '-m',
    '-n, --numeric-uid-gid', '-N, --literal', '-o', '-p', '-q, --hide-control-chars', '--show-control-chars',
    '-Q, --quote-name', '--quoting-style=WORD', '-r, --reverse', '-R, --recursive', '-s, --size', '-S', '--sort=WORD',
    '--time=WORD', '--time-style=TIME_STYLE', '-t', '-T, --tabsize=COLS', '-u', '-U', '-v', '-w, --width=COLS', '-x', '-X',
    '-Z, --context', '--zero', '-1', '--help', '--version',
  ],
});

/** What the policy must allow and must ask of ls (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['ls -la', 'ls src'], ask: ['ls ~/.ssh', 'ls /'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
