// The per-program specs, by program name. `judgeProgram` reads a command's words with the
// program's own syntax; a program without a module (or a form a module does not cover, such as
// `git push`) gets undefined and keeps the older option table its module holds (optionVerdict.ts) and its rules.
import type { ArgWord } from './getopt';
import type { ProgramJudgement, ProgramModule } from './judge';
import { program as awk } from './awk';
import { program as basename } from './basename';
import { program as cat } from './cat';
import { program as cmp } from './cmp';
import { program as cut } from './cut';
import { program as date } from './date';
import { program as df } from './df';
import { program as diff } from './diff';
import { program as dirname } from './dirname';
import { program as du } from './du';
import { program as file } from './file';
import { program as find } from './find';
import { program as git } from './git';
import { program as grep } from './grep';
import { program as head } from './head';
import { program as jq } from './jq';
import { program as less } from './less';
import { program as ls } from './ls';
import { program as man } from './man';
import { program as npm } from './npm';
import { program as readlink } from './readlink';
import { program as realpath } from './realpath';
import { program as rg } from './rg';
import { program as sed } from './sed';
import { echoProgram, printfProgram, pwdProgram, trueFalseProgram, typeProgram, whichProgram } from './shellBuiltins';
import { program as sort } from './sort';
import { program as stat } from './stat';
import { program as tail } from './tail';
import { program as tar } from './tar';
import { program as tr } from './tr';
import { program as tree } from './tree';
import { program as uniq } from './uniq';
import { program as wc } from './wc';

export const PROGRAM_MODULES: readonly ProgramModule[] = [
  awk, basename, cat, cmp, cut, date, df, diff, dirname, du, file, find, git, grep, head, jq, less, ls, man, npm, readlink, realpath, rg,
  sed, echoProgram, printfProgram, pwdProgram, trueFalseProgram, typeProgram, whichProgram, sort, stat, tail, tar, tr, tree, uniq, wc,
];

const BY_NAME = new Map<string, ProgramModule>();
for (const m of PROGRAM_MODULES) for (const n of m.names) BY_NAME.set(n, m);

export function hasProgramSpec(name: string): boolean {
  return BY_NAME.has(name);
}

/** The judgement of `name args…` by its spec, or undefined when the program (or this form of it) has none. */
export function judgeProgram(name: string, args: readonly ArgWord[]): ProgramJudgement | undefined {
  const m = BY_NAME.get(name);
  return m?.judge(name, args);
}

/** A segment's argv (argv0 first) with the indexes of its dynamic words: the judgement, memoised per argv array. */
const memo = new WeakMap<readonly string[], ProgramJudgement | null>();
export function judgeArgv(argv: readonly string[], dynamicArgs: readonly number[] | undefined): ProgramJudgement | undefined {
  const hit = memo.get(argv);
  if (hit !== undefined) return hit ?? undefined;
  const dyn = new Set(dynamicArgs ?? []);
  const name = argv.at(0) ?? ''; // a segment may have no argv
  const j = dyn.has(0) ? undefined : judgeProgram(name, argv.slice(1).map((text, k) => ({ text, dynamic: dyn.has(k + 1) })));
  memo.set(argv, j ?? null);
  return j;
}
