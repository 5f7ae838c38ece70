// `sed`: options from `sed --help` of GNU sed 4.9 on this machine (Debian 12); its script is read
// by sedScript.ts. `-i` rewrites the files, `-f` reads a script the analysis cannot see, the
// script's `e` and `s///e` run commands, `w`/`W`/`s///w` write files (reported as written paths),
// `r`/`R` read files (checked like operands).
import { parseArgs } from './getopt';
import { judgeBySpec, type ProgramModule, type ProgramExamples } from './judge';
import { parseSedScript } from './sedScript';
import { defineProgram } from './spec';

export const spec = defineProgram({
  name: 'sed',
  source: 'GNU sed 4.9, `sed --help`',
  operands: 'patternThenReads',
  patternGivenBy: ['--expression', '--file'],
  options: [
    '-n, --quiet, --silent', '--debug', '-e, --expression=script', '-f, --file=script-file @script', '--follow-symlinks',
    '-i[SUFFIX], --in-place[=SUFFIX] @inplace', '-l N, --line-length=N', '--posix', '-E, -r, --regexp-extended',
    '-s, --separate', '--sandbox', '-u, --unbuffered', '-z, --null-data', '--help', '--version',
    // Accepted and documented in the manual, not in `--help` on GNU/Linux.
    '-b, --binary',
  ],
});

export const SED_REASON = {
  dynamic: (name: string) => `\`${name}\` script cannot be read statically`,
  unreadable: (name: string, why: string) => `\`${name}\` script cannot be read (${why})`,
  runs: (name: string) => `\`${name}\` script runs a command (\`e\` or \`s///e\`)`,
  writes: (name: string, file: string) => `\`${name}\` script writes \`${file}\` (\`w\`)`,
} as const;

/** What the policy must allow and must ask of sed (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['sed -n 1,5p a.txt'], ask: ['sed -i s/a/b/ a.txt', "sed 'w out' a.txt"] };

export const program: ProgramModule = {
  examples: EXAMPLES,
  names: ['sed', 'gsed'],
  spec,
  judge(name, args) {
    const parsed = parseArgs(spec, args);
    const j = judgeBySpec(spec, name, args, parsed);
    if (parsed.problem !== undefined) return j;
    const scripts = parsed.options.filter((o) => o.def.canonical === '--expression');
    const pieces: { text: string; index: number; dynamic: boolean }[] = scripts.map((o) => ({ text: o.value ?? '', index: o.valueIndex ?? 0, dynamic: o.valueDynamic ?? false }));
    const usesFile = parsed.options.some((o) => o.def.canonical === '--file');
    if (pieces.length === 0 && !usesFile) {
      const first = parsed.operands[0] as (typeof parsed.operands)[number] | undefined;
      if (!first) return j; // `sed` alone: usage error, runs nothing
      pieces.push(first);
    }
    if (pieces.some((p) => p.dynamic)) {
      j.reason ??= SED_REASON.dynamic(name);
      return j;
    }
    const script = parseSedScript(pieces.map((p) => p.text).join('\n'));
    const at = pieces[0]?.index ?? 0;
    if (script.error !== undefined) j.reason ??= SED_REASON.unreadable(name, script.error);
    if (script.runs) j.reason ??= SED_REASON.runs(name);
    for (const w of script.writes) {
      j.reason ??= SED_REASON.writes(name, w);
      j.paths.push({ word: w, index: at, dynamic: false, writes: true });
    }
    for (const r of script.reads) j.paths.push({ word: r, index: at, dynamic: false, writes: false });
    return j;
  },
};
