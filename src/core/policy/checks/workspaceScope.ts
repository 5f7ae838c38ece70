// The workspace boundary (opencode's external_directory idea): every word of a command that may
// name a file it reads, writes or enters, and every redirect target, is resolved the way the
// filesystem would (relative to the cwd, symlinks followed with realpath) and anything outside
// every workspace root asks first. The words are bash's own expansion of what was written
// (segmentExpansion.ts: tilde, braces, globs), so nothing here models expansion.
//
// Which words are paths is decided per program only where the answer is "not a path": a table of
// programs whose arguments never name files (`echo`), and of positions that are patterns or
// values (`grep PATTERN`, `find -name GLOB`). Every other word counts when it escapes the
// workspace: it starts with `/` or `..`, or it resolves (possibly through a symlink) to an
// existing path outside. Links met while walking (`grep -R`) are symlinkWalk.ts's.
// Known limit: a program may read paths it finds itself (a config file names another file); the
// sandbox covers those.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Segment } from '../policyContracts';
import { isHarmlessDevice, namesFile } from './redirectTargets';
import { specPathWords } from '../programs/pathWords';

/** Commands whose operands are paths they read, write or enter (a dynamic operand is unresolvable). */
export const PATH_COMMANDS: ReadonlySet<string> = new Set([
  'cd', 'pushd', 'rm', 'rmdir', 'cp', 'mv', 'mkdir', 'touch', 'chmod', 'chown', 'chgrp', 'ln', 'cat', 'tee',
]);

/** Programs whose arguments never name a file they open. */
const NO_PATH_ARGS: ReadonlySet<string> = new Set([
  'echo', 'printf', 'true', 'false', ':', 'test', '[', 'exit', 'return', 'export', 'local', 'readonly', 'unset',
  'shift', 'kill', 'sleep', 'seq', 'yes', 'expr', 'pwd', 'type', 'which', 'wait', 'jobs', 'basename', 'dirname',
  'id', 'whoami', 'uname', 'hostname', 'nproc', 'printenv', 'tput', 'clear',
]);

/**
 * Commands that act on a path itself (remove, move, change its mode, link it), for which even a
 * harmless device is outside the workspace: `rm /dev/null` as root breaks the machine.
 */
const ACTS_ON_PATH: ReadonlySet<string> = new Set(['cd', 'pushd', 'rm', 'rmdir', 'cp', 'mv', 'mkdir', 'touch', 'chmod', 'chown', 'chgrp', 'ln']);

/** Commands whose first operand is a mode or owner, not a path. */
const FIRST_OPERAND_NOT_PATH: ReadonlySet<string> = new Set(['chmod', 'chown', 'chgrp']);

/** Programs whose first operand is a pattern or program text unless an option supplied one. */
const PATTERN_FIRST: Readonly<Record<string, { given: RegExp }>> = {
  grep: { given: /^(?:-[A-Za-z]*[ef]|--regexp|--file)/ },
  egrep: { given: /^(?:-[A-Za-z]*[ef]|--regexp|--file)/ },
  fgrep: { given: /^(?:-[A-Za-z]*[ef]|--regexp|--file)/ },
  rg: { given: /^(?:-[A-Za-z]*[ef]|--regexp|--file)/ },
  ag: { given: /^$/ },
  ack: { given: /^$/ },
  sed: { given: /^(?:-[A-Za-z]*[ef]|--expression|--file)/ },
  awk: { given: /^(?:-[A-Za-z]*f|--file)/ },
  gawk: { given: /^(?:-[A-Za-z]*f|--file)/ },
  jq: { given: /^(?:--from-file|-f)$/ },
};

/** Options whose next word is a value that is not a path. */
const VALUE_OPTIONS: Record<string, ReadonlySet<string>> = {
  grep: new Set(['-e', '-m', '-A', '-B', '-C', '-d', '-D', '--regexp', '--max-count', '--context', '--label']),
  rg: new Set(['-e', '-m', '-A', '-B', '-C', '-g', '-t', '-T', '--regexp', '--glob', '--type', '--max-count', '--context']),
  sed: new Set(['-e', '--expression', '-l']),
  awk: new Set(['-v', '-F']),
  jq: new Set(['--arg', '--argjson']),
  find: new Set([
    '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-type', '-xtype',
    '-maxdepth', '-mindepth', '-size', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-perm', '-user',
    '-group', '-printf', '-uid', '-gid', '-links', '-inum', '-newermt', '-regextype',
  ]),
  git: new Set(['-n', '-m', '--author', '--grep', '--since', '--until', '--format', '--pretty', '-S', '-G']),
  head: new Set(['-n', '-c']),
  tail: new Set(['-n', '-c']),
};
VALUE_OPTIONS.egrep = VALUE_OPTIONS.grep;
VALUE_OPTIONS.fgrep = VALUE_OPTIONS.grep;
VALUE_OPTIONS.gawk = VALUE_OPTIONS.awk;
/** jq's `--arg NAME VALUE` takes two words. */
const TWO_VALUE_OPTIONS: ReadonlySet<string> = new Set(['--arg', '--argjson']);

export type PathProblem =
  | { kind: 'outside'; word: string; resolved: string }
  | { kind: 'unresolved'; word: string };

/** Resolves an expanded path word against the cwd. */
export function resolvePathWord(word: string, cwd: string): string {
  return path.resolve(cwd, word);
}

/** Unquoted expansion syntax in a word that did not go through the expander (an option's value). */
const UNEXPANDED = /[~*?[{]/;

export function isInside(resolved: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const r = path.resolve(root);
    const rel = path.relative(r, resolved);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

/**
 * Real paths recently resolved. Decisions come in bursts for the same few directories; a short
 * lifetime keeps a symlink created a moment ago from being missed for long.
 */
const REAL_CACHE_MS = 1000;
const REAL_CACHE_SIZE = 2000;
const realCache = new Map<string, { real: string; at: number }>();

/** lstat, with ENOTDIR, EACCES and the like read as "not there" (a word may name a path under a file). */
function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The real path of `p`: symlinks resolved for the part that exists, the rest appended. */
function realResolve(p: string, memo: Map<string, string>): string {
  const hit = memo.get(p);
  if (hit !== undefined) return hit;
  const now = Date.now();
  const cached = realCache.get(p);
  if (cached && now - cached.at < REAL_CACHE_MS) {
    memo.set(p, cached.real);
    return cached.real;
  }
  let real: string;
  // lstat first: a missing path costs no exception (realpath's throw is the slow part).
  if (lstatOrUndefined(p)) {
    try {
      real = fs.realpathSync.native(p);
    } catch {
      real = p; // a dangling link or no permission: judged as written
    }
  } else {
    const parent = path.dirname(p);
    real = parent === p ? p : path.join(realResolve(parent, memo), path.basename(p));
  }
  memo.set(p, real);
  if (realCache.size >= REAL_CACHE_SIZE) realCache.clear();
  realCache.set(p, { real, at: now });
  return real;
}

/** The real path of `p` as `realResolve` finds it (the existing part's symlinks resolved), cached briefly. */
export function realPath(p: string): string {
  return realResolve(p, new Map());
}

interface PathWord {
  word: string;
  dynamic: boolean;
  /** From a command whose operands are paths by definition: also judged when it does not exist. */
  certain: boolean;
}

/** The operands of the classic file commands (the original, strict table). */
function pathCommandOperands(seg: Segment, dynamic: ReadonlySet<number>): PathWord[] {
  const name = seg.argv[0];
  const out: PathWord[] = [];
  let options = true;
  let skipFirst = FIRST_OPERAND_NOT_PATH.has(name);
  for (let i = 1; i < seg.argv.length; i++) {
    const word = seg.argv[i];
    if (options && word === '--') {
      options = false;
      continue;
    }
    if (options && word.startsWith('-') && word !== '-') {
      const eq = word.indexOf('=');
      if (word.startsWith('--reference')) skipFirst = false;
      // `--target-directory=/x`, `--reference=/x`: the value is a path.
      if (word.startsWith('--') && eq > 0) out.push({ word: word.slice(eq + 1), dynamic: dynamic.has(i), certain: true });
      continue;
    }
    if (skipFirst) {
      skipFirst = false;
      continue;
    }
    out.push({ word, dynamic: dynamic.has(i), certain: true });
  }
  if ((name === 'cd' || name === 'pushd') && out.length === 0) out.push({ word: os.homedir(), dynamic: false, certain: true });
  return out;
}

/** Every other program: words that may be paths, minus patterns and option values. */
function genericOperands(seg: Segment, dynamic: ReadonlySet<number>): PathWord[] {
  const name = seg.argv[0];
  if (NO_PATH_ARGS.has(name)) return [];
  const values = Object.hasOwn(VALUE_OPTIONS, name) ? VALUE_OPTIONS[name] : undefined;
  const pattern = Object.hasOwn(PATTERN_FIRST, name) ? PATTERN_FIRST[name] : undefined;
  let patternPending = pattern !== undefined && !seg.argv.slice(1).some((w) => pattern.given.test(w));
  const out: PathWord[] = [];
  let options = true;
  for (let i = 1; i < seg.argv.length; i++) {
    const word = seg.argv[i];
    const isDynamic = dynamic.has(i);
    if (options && word === '--') {
      options = false;
      continue;
    }
    if (options && word.startsWith('-') && word.length > 1) {
      if (values?.has(word)) {
        i += TWO_VALUE_OPTIONS.has(word) ? 2 : 1;
        continue;
      }
      const eq = word.indexOf('=');
      if (eq > 0) {
        const value = word.slice(eq + 1);
        if (!values?.has(word.slice(0, eq))) out.push({ word: value, dynamic: isDynamic, certain: false });
      } else if (/^-[A-Za-z](?:[/~]|\.\.)/.test(word)) {
        out.push({ word: word.slice(2), dynamic: isDynamic, certain: false }); // `-I../x`, `-f/etc/x`
      } else if (isDynamic) {
        out.push({ word, dynamic: true, certain: false });
      }
      continue;
    }
    if (patternPending) {
      patternPending = false;
      continue;
    }
    out.push({ word, dynamic: isDynamic, certain: false });
  }
  return out;
}

interface Judge {
  cwd: string;
  roots: string[];
  memo: Map<string, string>;
}

function escapes(word: string): boolean {
  return word.startsWith('/') || word === '..' || word.startsWith('../') || word.includes('/../') || word.endsWith('/..');
}

/** Judges one word as bash passes it (expanded). */
function judgeWord(word: string, certain: boolean, j: Judge): PathProblem | undefined {
  const resolved = resolvePathWord(word, j.cwd);
  if (!isInside(resolved, j.roots)) {
    if (certain || escapes(word) || fs.existsSync(resolved)) return { kind: 'outside', word, resolved };
    return undefined;
  }
  const real = realResolve(resolved, j.memo);
  if (!isInside(real, j.roots)) return { kind: 'outside', word, resolved: real };
  return undefined;
}

/** The first path word or redirect target of the segment that is outside the roots or unknowable. */
export function findExternalPath(seg: Segment, cwd: string, roots: readonly string[]): PathProblem | undefined {
  const dynamic = new Set(seg.dynamicArgs ?? []);
  const name = seg.argv[0];
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a segment may have no argv (`$(< file)`, a bare redirect)
  const words: PathWord[] = name === undefined ? [] : PATH_COMMANDS.has(name) ? pathCommandOperands(seg, dynamic) : specPathWords(seg) ?? genericOperands(seg, dynamic);
  // Option values (`git -C DIR`) are not expanded by the helper: expansion syntax there is unresolved.
  for (const p of seg.optionPaths ?? []) words.push({ word: p, dynamic: UNEXPANDED.test(p), certain: true });
  // A pattern's matches (or the pattern itself, when nothing matched) name what bash read to make
  // them: judged as paths for every program, also those whose operands are text (`echo link/*`).
  for (const k of seg.globbedArgs ?? []) if (k < seg.argv.length) words.push({ word: seg.argv[k], dynamic: false, certain: true });
  for (const r of seg.redirects) {
    if (!namesFile(r)) continue;
    words.push(r.target === undefined ? { word: `${r.fd ?? ''}${r.op} …`, dynamic: true, certain: true } : { word: r.target, dynamic: false, certain: true });
  }
  if (words.length === 0) return undefined;
  const memo = new Map<string, string>();
  const j: Judge = { cwd, roots: [...roots, ...roots.map((r) => realResolve(path.resolve(r), memo))], memo };
  const judged = new Set<string>();
  for (const { word, dynamic: isDynamic, certain } of words) {
    if (isDynamic || (word === '-' && (name === 'cd' || name === 'pushd'))) return { kind: 'unresolved', word };
    // Reading `/dev/zero` or `/dev/urandom`, writing `/dev/null`: nothing outside is read or kept.
    if (isHarmlessDevice(word) && !ACTS_ON_PATH.has(name)) continue;
    // `ls a a a …` (10,000 times): each distinct word is judged once.
    const key = `${certain ? 1 : 0}${word}`;
    if (judged.has(key)) continue;
    judged.add(key);
    const problem = judgeWord(word, certain, j);
    if (problem) return problem;
  }
  return undefined;
}
