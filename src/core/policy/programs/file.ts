// `file`: options from `file --help` of file 5.44 on this machine (Debian 12). `-C` compiles a magic
// file (writes), `-f` reads a list of names, `-p` resets the files' access times (changes them).
// `-z`/`-Z` look inside compressed files by running the decompressor found on PATH for formats the
// library does not read itself (`lz4 -cd`, `zstd -cd`, `lrzip`…, seen with strace): they run programs.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'file',
  source: 'file 5.44, `file --help`',
  operands: 'reads',
  options: [
    '--help', '-v, --version', '-m, --magic-file=LIST @reads', '-z, --uncompress @runs', '-Z, --uncompress-noreport @runs', '-b, --brief',
    '-c, --checking-printout', '-e, --exclude=TEST', '--exclude-quiet=TEST', '-f, --files-from=FILE @fileList',
    '-F, --separator=STRING', '-i, --mime', '--apple', '--extension', '--mime-type', '--mime-encoding', '-k, --keep-going',
    '-l, --list', '-L, --dereference', '-h, --no-dereference', '-n, --no-buffer', '-N, --no-pad', '-0, --print0',
    '-p, --preserve-date @inplace', '-P, --parameter=NAME', '-r, --raw', '-s, --special-files', '-S, --no-sandbox',
    '-C, --compile @writes', '-d, --debug',
  ],
});

/** What the policy must allow and must ask of file (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['file README.md'], ask: ['file -f ../list.txt', 'file /etc/passwd'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
