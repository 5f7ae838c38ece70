// `tree`: options from `tree --help` of tree 2.1.0 on this machine (Debian 12). tree reads
// `--opt=value` and `--opt value`, no abbreviations. `-o FILE` writes its output to a file, `-R`
// writes `00Tree.html` files, `--fromfile` reads the listing from files, `--infofile`, `--gitfile`,
// `--hintro` and `--houtro` read files.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'tree',
  source: 'tree 2.1.0, `tree --help`',
  prefixes: false,
  operands: 'reads',
  options: [
    '-a', '-d', '-l', '-f', '-x', '-L level', '-R @ask', '-P pattern', '-I pattern', '--gitignore', '--gitfile=X @reads',
    '--ignore-case', '--matchdirs', '--metafirst', '--prune', '--info', '--infofile=X @reads', '--noreport',
    '--charset=X', '--filelimit=N', '-o filename @writes', '-q', '-N', '-Q', '-p', '-u', '-g', '-s', '-h', '--si', '--du',
    '-D', '--timefmt=FMT', '-F', '--inodes', '--device', '-v', '-t', '-c', '-U', '-r', '--dirsfirst', '--filesfirst',
    '--sort=X', '-i', '-A', '-S', '-n', '-C', '-X', '-J', '-H baseHREF', '-T string', '--nolinks', '--hintro=X @reads',
    '--houtro=X @reads', '--fromfile @fileList', '--fflinks', '--version', '--help',
  ],
});

/** What the policy must allow and must ask of tree (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['tree src'], ask: ['tree -o out.txt src'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
