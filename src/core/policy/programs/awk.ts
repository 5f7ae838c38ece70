// `awk`, `gawk`, `mawk`, `nawk`: options from `gawk --help` of GNU Awk 5.2.1 on this machine
// (Debian 12; mawk 1.3.4's `-f`, `-F`, `-v` are the same, its `-W …` asks). `-f`, `-E`, `-i` read
// program text from files the analysis cannot see, `-l` loads a shared library, `-D` reads debugger
// commands, `-o`, `-p`, `-d` write files. The program text is read by awkProgram.ts: `system()`,
// pipes, `getline`, `print >` and `@load`/`@include` ask. Operands are files, or `var=value`.
import type { ArgWord } from './getopt';
import { parseArgs } from './getopt';
import { readAwkProgram } from './awkProgram';
import { judgeBySpec, type ProgramJudgement, type ProgramModule, type ProgramExamples } from './judge';
import { defineProgram } from './spec';

export const spec = defineProgram({
  name: 'gawk',
  source: 'GNU Awk 5.2.1, `gawk --help`',
  // gawk stops at the first operand (the program text): no permutation.
  permute: false,
  operands: 'patternThenReads',
  patternGivenBy: ['--file', '--source', '--exec'],
  options: [
    '-f, --file=progfile @script', '-F, --field-separator=fs', '-v, --assign=var=val', '-b, --characters-as-bytes',
    '-c, --traditional', '-C, --copyright', '-d[file], --dump-variables[=file] @writes', '-D[file], --debug[=file] @ask',
    '-e, --source=program-text', '-E, --exec=file @script', '-g, --gen-pot', '-h, --help',
    '-i, --include=includefile @script', '-I, --trace', '-l, --load=library @runs', '-L[fatal], --lint[=fatal]',
    '-M, --bignum', '-N, --use-lc-numeric', '-n, --non-decimal-data', '-o[file], --pretty-print[=file] @writes',
    '-O, --optimize', '-p[file], --profile[=file] @writes', '-P, --posix', '-r, --re-interval', '-s, --no-optimize',
    '-S, --sandbox', '-t, --lint-old', '-V, --version',
  ],
});

export const AWK_REASON = {
  /** The same words as the normalisation's own awk check (shellNormalize.ts OPAQUE.awkCommand). */
  runs: (name: string) => `\`${name}\` program runs shell commands`,
  program: (name: string, why: string) => `\`${name}\` program ${why}`,
  dynamic: (name: string) => `\`${name}\` program cannot be read statically`,
} as const;

export function judgeAwk(name: string, args: readonly ArgWord[]): ProgramJudgement {
  const parsed = parseArgs(spec, args);
  const j = judgeBySpec(spec, name, args, parsed);
  if (parsed.problem !== undefined) return j;
  const sources = parsed.options.filter((o) => o.def.canonical === '--source').map((o) => ({ text: o.value ?? '', dynamic: o.valueDynamic ?? false }));
  const fromFile = parsed.options.some((o) => o.def.canonical === '--file' || o.def.canonical === '--exec');
  if (sources.length === 0 && !fromFile) {
    const first = parsed.operands.at(0);
    if (first) sources.push({ text: first.text, dynamic: first.dynamic });
  }
  for (const s of sources) {
    if (s.dynamic) j.reason ??= AWK_REASON.dynamic(name);
    const found = readAwkProgram(s.text);
    if (found.runs) j.reason ??= AWK_REASON.runs(name);
    if (found.risk !== undefined) j.reason ??= AWK_REASON.program(name, found.risk);
  }
  // `ARGC=5 f`, `-v ARGC=…`: the list of files it opens changes with them.
  const listed = [...parsed.operands.slice(sources.length > 0 && !fromFile ? 1 : 0).map((o) => o.text), ...parsed.options.filter((o) => o.def.canonical === '--assign').map((o) => o.value ?? '')];
  const argvAssignment = listed.find((t) => /^(ARGV|ARGC|ENVIRON)\b/.test(t));
  if (argvAssignment !== undefined) j.reason ??= AWK_REASON.program(name, `assigns \`${argvAssignment.split('=')[0]}\`, which changes the files it opens`);
  // `var=value` operands assign, they name no file.
  j.paths = j.paths.filter((p) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(p.word));
  return j;
}

/** What the policy must allow and must ask of awk (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ["awk '{print $1}' a.txt", "awk -F, 'NR>1 {print $2}' a.txt"], ask: ['awk \'{system("id")}\' a.txt', 'awk -f prog.awk a.txt', 'awk \'{print > "out.txt"}\' a.txt'] };

export const program: ProgramModule = { examples: EXAMPLES, names: ['awk', 'gawk', 'mawk', 'nawk'], spec, judge: judgeAwk };
