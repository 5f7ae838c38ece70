// `grep`, `egrep`, `fgrep`: options from `grep --help` of GNU grep 3.8 on this machine (Debian 12),
// plus `-y` (an obsolete `-i` it still accepts). The first operand is the pattern unless `-e` or
// `-f` gave one; `-f FILE` and `--exclude-from=FILE` read pattern files (paths checked like operands).
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'grep',
  source: 'GNU grep 3.8, `grep --help`',
  numeric: true,
  operands: 'patternThenReads',
  patternGivenBy: ['--regexp', '--file'],
  options: [
    '-E, --extended-regexp', '-F, --fixed-strings', '-G, --basic-regexp', '-P, --perl-regexp', '-e, --regexp=PATTERNS',
    '-f, --file=FILE @reads', '-i, --ignore-case', '-y', '--no-ignore-case', '-w, --word-regexp', '-x, --line-regexp',
    '-z, --null-data', '-s, --no-messages', '-v, --invert-match', '-V, --version', '--help', '-m, --max-count=NUM',
    '-b, --byte-offset', '-n, --line-number', '--line-buffered', '-H, --with-filename', '-h, --no-filename',
    '--label=LABEL', '-o, --only-matching', '-q, --quiet, --silent', '--binary-files=TYPE', '-a, --text', '-I',
    '-d, --directories=ACTION', '-D, --devices=ACTION', '-r, --recursive', '-R, --dereference-recursive',
    '--include=GLOB', '--exclude=GLOB', '--exclude-from=FILE @reads', '--exclude-dir=GLOB', '-L, --files-without-match',
    '-l, --files-with-matches', '-c, --count', '-T, --initial-tab', '-Z, --null', '-B, --before-context=NUM',
    '-A, --after-context=NUM', '-C, --context=NUM', '--group-separator=SEP', '--no-group-separator', '--color[=WHEN]',
    '--colour[=WHEN]', '-U, --binary',
  ],
});

/** What the policy must allow and must ask of grep (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['grep -rn foo src', 'egrep x a.txt'], ask: ['grep -f ../patterns a.txt', 'grep x /etc/passwd'] };

export const program: ProgramModule = { ...simpleProgram(spec, ['grep', 'egrep', 'fgrep']), examples: EXAMPLES };
