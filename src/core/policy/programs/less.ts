// `less` (and `more` when it is less): options from `less --help` of less 590 on this machine
// (Debian 12), read as less reads them: a value is the rest of the word or the next word (`-ofile`,
// `-o file`, `--log-file=file`). less also takes abbreviated long names, matched without regard to
// case in ways its `--help` does not spell out (`--QUIT` is ambiguous to it): here only the full
// names are read, and an abbreviation asks. `-o`/`-O`/`--log-file` write a
// copy of the input, `-k`/`--lesskey-file` read key bindings that can name commands, and an operand
// `+cmd` runs less commands at start (`+!cmd` runs a shell command): those ask. The `LESS`
// variable's options are the environment checks' concern, not the command line's.
import type { ArgWord } from './getopt';
import { parseArgs } from './getopt';
import { judgeBySpec, type ProgramJudgement, type ProgramModule, type ProgramExamples } from './judge';
import { defineProgram } from './spec';

export const spec = defineProgram({
  name: 'less',
  source: 'less 590, `less --help`',
  prefixes: false,
  operands: 'reads',
  options: [
    '-?, --help', '-a, --search-skip-screen', '-A, --SEARCH-SKIP-SCREEN', '-b, --buffers=N', '-B, --auto-buffers',
    '-c, --clear-screen', '-d, --dumb', '-D, --color=COLOR', '-e, --quit-at-eof', '-E, --QUIT-AT-EOF', '-f, --force',
    '-F, --quit-if-one-screen', '-g, --hilite-search', '-G, --HILITE-SEARCH', '-h, --max-back-scroll=N',
    '-i, --ignore-case', '-I, --IGNORE-CASE', '-j, --jump-target=N', '-J, --status-column',
    '-k, --lesskey-file=FILE @script', '-K, --quit-on-intr', '-L, --no-lessopen', '-m, --long-prompt',
    '-M, --LONG-PROMPT', '-n, --line-numbers', '-N, --LINE-NUMBERS', '-o, --log-file=FILE @writes',
    '-O, --LOG-FILE=FILE @writes', '-p, --pattern=PATTERN', '-P, --prompt=PROMPT', '-q, --quiet, --silent',
    '-Q, --QUIET, --SILENT', '-r, --raw-control-chars', '-R, --RAW-CONTROL-CHARS', '-s, --squeeze-blank-lines',
    '-S, --chop-long-lines', '-t, --tag=TAG', '-T, --tag-file=FILE @reads', '-u, --underline-special',
    '-U, --UNDERLINE-SPECIAL', '-V, --version', '-w, --hilite-unread', '-W, --HILITE-UNREAD', '-x, --tabs=N',
    '-X, --no-init', '-y, --max-forw-scroll=N', '-z, --window=N', '-", --quotes=CC', '-~, --tilde', '-#, --shift=N',
    '--file-size', '--follow-name', '--incsearch', '--line-num-width=N', '--mouse', '--no-keypad', '--no-histdups',
    '--rscroll=C', '--save-marks', '--status-col-width=N', '--use-backslash', '--use-color', '--wheel-lines=N',
  ],
});

export const LESS_REASON = {
  initialCommand: (name: string) => `\`${name} +…\` runs less commands at start (they may run programs)`,
} as const;

export function judgeLess(name: string, args: readonly ArgWord[]): ProgramJudgement {
  const parsed = parseArgs(spec, args);
  const j = judgeBySpec(spec, name, args, parsed);
  const plus = parsed.operands.find((o) => o.text.startsWith('+') || o.dynamic);
  if (plus && j.reason === undefined) j.reason = LESS_REASON.initialCommand(name);
  if (plus) j.paths = j.paths.filter((p) => p.index !== plus.index);
  return j;
}

/** What the policy must allow and must ask of less (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['less README.md'], ask: ['less -o log.txt README.md'] };

export const program: ProgramModule = { examples: EXAMPLES, names: ['less'], spec, judge: judgeLess };
