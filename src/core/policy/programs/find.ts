// `find`: GNU findutils 4.9.0's own expression syntax (no abbreviations, no clusters), from
// `find --help` and find(1) on this machine (Debian 12). Starting points come before the first word
// that begins with `-`, `(`, `)`, `!` or `,`. Every primary is listed with the words it takes and
// its effect: `-exec`/`-execdir`/`-ok`/`-okdir` run programs, `-delete` removes, `-fprint`,
// `-fprint0`, `-fprintf` and `-fls` write files, `-files0-from` reads a list of starting points;
// `-newer FILE`, `-anewer`, `-cnewer`, `-samefile` read a path. Anything else asks, naming it.
import { cannotBeOption, type ArgWord } from './getopt';
import { SPEC_REASON, type PathArg, type ProgramJudgement, type ProgramModule, type ProgramExamples } from './judge';

type FindEffect = 'plain' | 'reads' | 'writes' | 'runs' | 'fileList' | 'deletes';

/** Primaries and the number of words after them. */
const PRIMARIES: Readonly<Record<string, readonly [number, FindEffect]>> = {
  // positional and global options
  '-daystart': [0, 'plain'], '-depth': [0, 'plain'], '-d': [0, 'plain'], '-follow': [0, 'plain'],
  '-ignore_readdir_race': [0, 'plain'], '-noignore_readdir_race': [0, 'plain'], '-mount': [0, 'plain'],
  '-xdev': [0, 'plain'], '-noleaf': [0, 'plain'], '-help': [0, 'plain'], '--help': [0, 'plain'],
  '-version': [0, 'plain'], '--version': [0, 'plain'], '-maxdepth': [1, 'plain'], '-mindepth': [1, 'plain'],
  '-regextype': [1, 'plain'], '-warn': [0, 'plain'], '-nowarn': [0, 'plain'], '-files0-from': [1, 'fileList'],
  // tests
  '-amin': [1, 'plain'], '-anewer': [1, 'reads'], '-atime': [1, 'plain'], '-cmin': [1, 'plain'], '-cnewer': [1, 'reads'],
  '-context': [1, 'plain'], '-ctime': [1, 'plain'], '-empty': [0, 'plain'], '-executable': [0, 'plain'],
  '-false': [0, 'plain'], '-fstype': [1, 'plain'], '-gid': [1, 'plain'], '-group': [1, 'plain'], '-ilname': [1, 'plain'],
  '-iname': [1, 'plain'], '-inum': [1, 'plain'], '-ipath': [1, 'plain'], '-iregex': [1, 'plain'],
  '-iwholename': [1, 'plain'], '-links': [1, 'plain'], '-lname': [1, 'plain'], '-mmin': [1, 'plain'],
  '-mtime': [1, 'plain'], '-name': [1, 'plain'], '-newer': [1, 'reads'], '-nogroup': [0, 'plain'],
  '-nouser': [0, 'plain'], '-path': [1, 'plain'], '-perm': [1, 'plain'], '-readable': [0, 'plain'],
  '-regex': [1, 'plain'], '-samefile': [1, 'reads'], '-size': [1, 'plain'], '-true': [0, 'plain'],
  '-type': [1, 'plain'], '-uid': [1, 'plain'], '-used': [1, 'plain'], '-user': [1, 'plain'],
  '-wholename': [1, 'plain'], '-writable': [0, 'plain'], '-xtype': [1, 'plain'],
  // actions
  '-delete': [0, 'deletes'], '-ls': [0, 'plain'], '-print': [0, 'plain'], '-print0': [0, 'plain'],
  '-printf': [1, 'plain'], '-prune': [0, 'plain'], '-quit': [0, 'plain'], '-fls': [1, 'writes'],
  '-fprint': [1, 'writes'], '-fprint0': [1, 'writes'], '-fprintf': [2, 'writes'],
  // operators
  '(': [0, 'plain'], ')': [0, 'plain'], '!': [0, 'plain'], '-not': [0, 'plain'], '-a': [0, 'plain'], '-and': [0, 'plain'],
  '-o': [0, 'plain'], '-or': [0, 'plain'], ',': [0, 'plain'],
};

const EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
/** `-newerXY`: X and Y from a, B, c, m, t; with Y = t the word is a time, else a file. */
const NEWER_XY = /^-newer([aBcm])([aBcmt])$/;

export const FIND_REASON = {
  unknown: (word: string) => `\`find ${word}\` is not a primary the policy knows for \`find\``,
  missing: (word: string) => `\`find ${word}\` needs a value`,
  deletes: () => '`find -delete` removes files',
  exec: (word: string) => `\`find ${word}\` runs a command for each match`,
  dynamic: (word: string) => `\`find\` has a word that may be a primary but cannot be read statically: \`${word}\``,
  globalOption: (word: string) => `\`find ${word}\` is not an option the policy knows for \`find\``,
} as const;

/** The option words before the starting points: `-H`, `-L`, `-P`, `-D LIST`, `-O LEVEL`. */
function leadingOptions(args: readonly ArgWord[]): { next: number; problem?: string } {
  let i = 0;
  while (i < args.length) {
    const t = args[i].text;
    if (args[i].dynamic) return { next: i };
    if (t === '-H' || t === '-L' || t === '-P') i++;
    else if (t === '-D') i += 2;
    else if (/^-O\d?$/.test(t)) i++;
    else if (t === '--') return { next: i + 1 };
    else if (/^-[HLP]+$/.test(t)) i++;
    else return { next: i };
  }
  return { next: i };
}

const EXPR_START = /^[-(),!]/;

export function judgeFind(args: readonly ArgWord[]): ProgramJudgement {
  const paths: PathArg[] = [];
  let reason: string | undefined;
  const lead = leadingOptions(args);
  let i = lead.next;
  // Starting points.
  for (; i < args.length; i++) {
    const w = args[i];
    if (w.dynamic) {
      if (cannotBeOption(w.text)) {
        paths.push({ word: w.text, index: i, dynamic: true, writes: false });
        continue;
      }
      reason = FIND_REASON.dynamic(w.text);
      break;
    }
    if (EXPR_START.test(w.text) && w.text !== '-') break;
    paths.push({ word: w.text, index: i, dynamic: false, writes: false });
  }
  // The expression.
  for (; i < args.length && reason === undefined; i++) {
    const w = args[i];
    const t = w.text;
    if (w.dynamic) {
      reason = FIND_REASON.dynamic(t);
      break;
    }
    if (EXEC.has(t)) {
      reason = FIND_REASON.exec(t);
      break;
    }
    const xy = NEWER_XY.exec(t);
    const entry: readonly [number, FindEffect] | undefined = xy ? [1, xy[2] === 't' ? 'plain' : 'reads'] : Object.hasOwn(PRIMARIES, t) ? PRIMARIES[t] : undefined;
    if (!entry) {
      reason = FIND_REASON.unknown(t);
      break;
    }
    const [count, effect] = entry;
    if (i + count >= args.length && count > 0) {
      reason = FIND_REASON.missing(t);
      break;
    }
    // A value only known at run time, unquoted, is split by bash: its pieces may be primaries.
    const split = args.slice(i + 1, i + 1 + count).find((v) => v.splits === true);
    if (split && effect === 'plain') {
      reason = SPEC_REASON.splits('find', split.text);
      break;
    }
    if (effect === 'deletes') reason = FIND_REASON.deletes();
    else if (effect === 'writes') {
      reason = SPEC_REASON.writes('find', t);
      paths.push({ word: args[i + 1].text, index: i + 1, dynamic: args[i + 1].dynamic, writes: true });
    } else if (effect === 'fileList') reason = SPEC_REASON.fileList('find', t);
    else if (effect === 'reads') paths.push({ word: args[i + 1].text, index: i + 1, dynamic: args[i + 1].dynamic, writes: false });
    i += count;
  }
  if (paths.length === 0 && reason === undefined) paths.push({ word: '.', index: -1, dynamic: false, writes: false });
  return reason === undefined ? { paths, canonical: [] } : { reason, paths, canonical: [] };
}

/** What the policy must allow and must ask of find (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ["find . -name '*.ts'", 'find src -type f'], ask: ['find . -name x -delete', 'find . -exec rm {} ;', 'find . -fprint out.txt'] };

export const program: ProgramModule = { examples: EXAMPLES, names: ['find'], judge: (_name, args) => judgeFind(args) };
