// `jq`: jq 1.6's own option reader (main.c), from `jq --help` and jq(1) on this machine (Debian 12):
// short flags may be clustered (`-rc`), long options are exact and take their values as separate
// words (`--arg NAME VALUE` takes two), options may follow the filter. The first operand is the
// filter unless `-f FILE` gave it; `--args`/`--jsonargs` make the remaining operands values, not
// files. jq can read files (`--slurpfile`, `--rawfile`, `-f`, `-L`) but never writes or runs one.
import { cannotBeOption, PARSE_PROBLEM, type ArgWord } from './getopt';
import { SPEC_REASON, type PathArg, type ProgramJudgement, type ProgramModule, type ProgramExamples } from './judge';

/** Long options and the words they take; `reads` marks the word that is a path. */
export const JQ_LONG_OPTIONS: Readonly<Record<string, { words: number; reads?: number }>> = {
  '--slurp': { words: 0 }, '--raw-output': { words: 0 }, '--join-output': { words: 0 }, '--ascii-output': { words: 0 },
  '--tab': { words: 0 }, '--indent': { words: 1 }, '--seq': { words: 0 }, '--stream': { words: 0 },
  '--stream-errors': { words: 0 }, '--exit-status': { words: 0 }, '--color-output': { words: 0 },
  '--monochrome-output': { words: 0 }, '--sort-keys': { words: 0 }, '--raw-input': { words: 0 },
  '--null-input': { words: 0 }, '--compact-output': { words: 0 }, '--from-file': { words: 1, reads: 1 },
  '--arg': { words: 2 }, '--argjson': { words: 2 }, '--slurpfile': { words: 2, reads: 2 }, '--rawfile': { words: 2, reads: 2 },
  '--argfile': { words: 2, reads: 2 }, '--args': { words: 0 }, '--jsonargs': { words: 0 }, '--unbuffered': { words: 0 },
  '--help': { words: 0 }, '--version': { words: 0 }, '--debug-dump-disasm': { words: 0 }, '--debug-trace': { words: 0 },
  '--run-tests': { words: 0 },
};
export const JQ_SHORT_FLAGS = 'srjacCMSRnehV';
const SHORT_TO_LONG: Readonly<Record<string, string>> = { f: '--from-file', L: '-L' };

export const JQ_REASON = {
  modules: () => '`jq` filter loads modules (`import`/`include`/`modulemeta`) or cannot be read statically',
  environment: () => '`jq` filter reads the environment (`env`, `$ENV`), which can hold tokens',
  filterFile: () => '`jq -f` reads its filter from a file the analysis cannot see',
} as const;

export function judgeJq(args: readonly ArgWord[]): ProgramJudgement {
  const paths: PathArg[] = [];
  const operands: { text: string; index: number; dynamic: boolean }[] = [];
  let fromFile = false;
  let valuesFollow = false;
  let done = false;
  const fail = (reason: string): ProgramJudgement => ({ reason, paths, canonical: [] });
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    const t = w.text;
    if (done || !t.startsWith('-') || t === '-' || (w.dynamic && cannotBeOption(t))) {
      operands.push({ text: t, index: i, dynamic: w.dynamic });
      continue;
    }
    if (w.dynamic) return fail(PARSE_PROBLEM.dynamic('jq', t));
    if (t === '--') {
      done = true;
      continue;
    }
    let long = t.startsWith('--') ? t : undefined;
    if (!long) {
      const letters = t.slice(1);
      const valueLetter = [...letters].find((c) => !JQ_SHORT_FLAGS.includes(c));
      if (valueLetter === undefined) continue;
      if (letters.length !== 1 || !Object.hasOwn(SHORT_TO_LONG, valueLetter)) {
        // `-Ldir` is the one attached form jq reads.
        if (letters[0] === 'L' && letters.length > 1) {
          paths.push({ word: letters.slice(1), index: i, dynamic: false, writes: false });
          continue;
        }
        return fail(PARSE_PROBLEM.unknown('jq', `-${valueLetter}`));
      }
      long = SHORT_TO_LONG[valueLetter];
    }
    if (long === '-L') {
      if (i + 1 >= args.length) return fail(PARSE_PROBLEM.needsValue('jq', '-L'));
      paths.push({ word: args[i + 1].text, index: i + 1, dynamic: args[i + 1].dynamic, writes: false });
      i++;
      continue;
    }
    if (!Object.hasOwn(JQ_LONG_OPTIONS, long)) return fail(PARSE_PROBLEM.unknown('jq', long));
    const spec = JQ_LONG_OPTIONS[long];
    if (i + spec.words >= args.length && spec.words > 0) return fail(PARSE_PROBLEM.needsValue('jq', long));
    if (spec.reads !== undefined) {
      const v = args[i + spec.reads];
      paths.push({ word: v.text, index: i + spec.reads, dynamic: v.dynamic, writes: false });
    }
    const split = args.slice(i + 1, i + 1 + spec.words).find((v) => v.splits === true);
    if (split) return fail(SPEC_REASON.splits('jq', split.text));
    if (long === '--from-file') fromFile = true;
    if (long === '--args' || long === '--jsonargs') valuesFollow = true;
    i += spec.words;
  }
  // `import`/`include` and `modulemeta` load modules by name from search paths outside the command
  // line (`~/.jq/NAME.jq`, `$ORIGIN/../lib/jq`, `-L`): strace showed `"a" | modulemeta` look there.
  const filter = fromFile ? undefined : operands.at(0);
  if (filter && (filter.dynamic || /\b(?:import|include|modulemeta)\b/.test(filter.text))) return fail(JQ_REASON.modules());
  // `env`, `$ENV`: off the sandbox these hold the parent's tokens; `-f FILE` may use them unseen.
  if (filter && /(?<![.\w$"])env\b|\$ENV\b|\$__prog_args\b/.test(filter.text)) return fail(JQ_REASON.environment());
  if (fromFile) return fail(JQ_REASON.filterFile());
  const files = operands.slice(1);
  if (!valuesFollow) for (const o of files) paths.push({ word: o.text, index: o.index, dynamic: o.dynamic, writes: false });
  return { paths, canonical: [] };
}

/** What the policy must allow and must ask of jq (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['jq .name data.json'], ask: ['jq . /etc/passwd', 'jq --rawfile x /etc/passwd .'] };

export const program: ProgramModule = { examples: EXAMPLES, names: ['jq'], judge: (_name, args) => judgeJq(args) };
