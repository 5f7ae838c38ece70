// `diff`: options from `diff --help` of GNU diffutils 3.8 on this machine (Debian 12); the template
// names `--GTYPE-group-format` and `--LTYPE-line-format` are spelled out. None writes; `-l` runs `pr`.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'diff',
  source: 'GNU diffutils 3.8, `diff --help`',
  operands: 'reads',
  options: [
    '--normal', '-q, --brief', '-s, --report-identical-files', '-c', '-C NUM', '--context[=NUM]', '-u', '-U NUM',
    '--unified[=NUM]', '-e, --ed', '-n, --rcs', '-y, --side-by-side', '-W, --width=NUM', '--left-column',
    '--suppress-common-lines', '-p, --show-c-function', '-F, --show-function-line=RE', '-L, --label=LABEL',
    '-t, --expand-tabs', '-T, --initial-tab', '--tabsize=NUM', '--suppress-blank-empty', '-l, --paginate @runs',
    '-r, --recursive', '--no-dereference', '-N, --new-file', '-P, --unidirectional-new-file', '--ignore-file-name-case',
    '--no-ignore-file-name-case', '-x, --exclude=PAT', '-X, --exclude-from=FILE @reads', '-S, --starting-file=FILE',
    '--from-file=FILE1 @reads', '--to-file=FILE2 @reads', '-i, --ignore-case', '-E, --ignore-tab-expansion',
    '-Z, --ignore-trailing-space', '-b, --ignore-space-change', '-w, --ignore-all-space', '-B, --ignore-blank-lines',
    '-I, --ignore-matching-lines=RE', '-a, --text', '--strip-trailing-cr', '-D, --ifdef=NAME',
    '--old-group-format=GFMT', '--new-group-format=GFMT', '--unchanged-group-format=GFMT', '--changed-group-format=GFMT',
    '--line-format=LFMT', '--old-line-format=LFMT', '--new-line-format=LFMT', '--unchanged-line-format=LFMT',
    '-d, --minimal', '--horizon-lines=NUM', '-H, --speed-large-files', '--color[=WHEN]', '--palette=PALETTE', '--help',
    '-v, --version',
    // Hidden options `--help` does not list (found by the prefix test: `diff --b` is ambiguous).
    '--binary', '--inhibit-hunk-merge', '-f, --forward-ed',
  ],
});

/** What the policy must allow and must ask of diff (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['diff -u a.txt b.txt'], ask: ['diff a.txt ../b.txt'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
