// `man` (man-db 2.11.2): options from `man --help` on this machine (Debian 12), read with argp's
// syntax (unique prefixes of long options: `--pag=x` is `--pager=x`). `-P`/`--pager`, `-H`/`--html`
// (a browser), `-X`/`--gxditview` and `-p`/`--preprocessor` run programs, `-C`/`--config-file`
// reads configuration that names programs, `-c`/`--catman` and `-u`/`--update` write caches. With
// `-l` the operands are files it reads; otherwise they are page names, and a name with a `/` is a
// file too. A page file can include any other file (roff `.so FILE`, `.nx FILE`), so a page read
// from a file or from a folder of pages the person did not install (`-l`, a path operand, `-M`) asks.
import type { ArgWord } from './getopt';
import { parseArgs } from './getopt';
import { judgeBySpec, SPEC_REASON, type ProgramJudgement, type ProgramModule, type ProgramExamples } from './judge';
import { defineProgram } from './spec';

export const spec = defineProgram({
  name: 'man',
  source: 'man-db 2.11.2, `man --help`',
  operands: 'none',
  options: [
    '-C, --config-file=FILE @config', '-d, --debug', '-D, --default', '--warnings[=WARNINGS]', '-f, --whatis',
    '-k, --apropos', '-K, --global-apropos', '-l, --local-file @ask', '-w, --where, --path, --location',
    '-W, --where-cat, --location-cat', '-c, --catman @ask', '-R, --recode=ENCODING', '-L, --locale=LOCALE',
    '-m, --systems=SYSTEM', '-M, --manpath=PATH @ask', '-S, -s, --sections=LIST', '-e, --extension=EXTENSION',
    '-i, --ignore-case', '-I, --match-case', '--regex', '--wildcard', '--names-only', '-a, --all', '-u, --update @ask',
    '--no-subpages', '-P, --pager=PAGER @runs', '-r, --prompt=STRING', '-7, --ascii', '-E, --encoding=ENCODING',
    '--no-hyphenation, --nh', '--no-justification, --nj', '-p, --preprocessor=STRING @runs', '-t, --troff',
    '-T, --troff-device[=DEVICE]', '-H, --html[=BROWSER] @runs', '-X, --gxditview[=RESOLUTION] @runs', '-Z, --ditroff',
    '-?, --help', '--usage', '-V, --version',
    // Hidden from `--help` (found by the prefix test: `man --pro` is ambiguous): the name in messages.
    '--program-name=NAME',
  ],
});

export function judgeMan(name: string, args: readonly ArgWord[]): ProgramJudgement {
  const parsed = parseArgs(spec, args);
  const j = judgeBySpec(spec, name, args, parsed);
  if (parsed.options.some((o) => o.def.canonical === '--local-file')) {
    for (const o of parsed.operands) j.paths.push({ word: o.text, index: o.index, dynamic: o.dynamic, writes: false });
  }
  // man-db reads an operand with a slash as a file (`man ./page.1`); a run-time word may be one.
  const file = parsed.operands.find((o) => o.text.includes('/') || o.dynamic);
  if (file) j.reason ??= SPEC_REASON.pageFile(name, file.text);
  return j;
}

/** What the policy must allow and must ask of man (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['man ls'], ask: ['man -l ./page.1', 'man -P cat ls'] };

export const program: ProgramModule = { examples: EXAMPLES, names: ['man'], spec, judge: judgeMan };
