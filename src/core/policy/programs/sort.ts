// `sort`: options from `sort --help` of GNU coreutils 9.1 on this machine (Debian 12).
// `-o`/`--output` writes, `--compress-program` runs a program, `--files0-from` reads a list of names,
// `-T` writes temporary files in a directory it names.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'sort',
  source: 'GNU coreutils 9.1, `sort --help`',
  operands: 'reads',
  options: [
    '-b, --ignore-leading-blanks', '-d, --dictionary-order', '-f, --ignore-case', '-g, --general-numeric-sort',
    '-i, --ignore-nonprinting', '-M, --month-sort', '-h, --human-numeric-sort', '-n, --numeric-sort', '-R, --random-sort',
    '--random-source=FILE @reads', '-r, --reverse', '--sort=WORD', '-V, --version-sort', '--batch-size=NMERGE',
    '-c, --check[=HOW]', '-C', '--compress-program=PROG @runs', '--debug', '--files0-from=F @fileList', '-k, --key=KEYDEF',
    '-m, --merge', '-o, --output=FILE @writes', '-s, --stable', '-S, --buffer-size=SIZE', '-t, --field-separator=SEP',
    '-T, --temporary-directory=DIR @writes', '--parallel=N', '-u, --unique', '-z, --zero-terminated', '--help', '--version',
  ],
});

/** What the policy must allow and must ask of sort (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['sort a.txt'], ask: ['sort -o out.txt a.txt'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
