// The segments of a command as bash will see them after expansion: every argv word, redirect
// target and command name whose source holds tilde, brace or glob syntax replaced by the fields a
// WordExpander (wordExpansion.ts) answers, in the command's cwd. The path checks (workspaceScope.ts,
// protectedPaths.ts, symlinkWalk.ts) and the program identity check judge these words and never
// model expansion themselves. One request per decision carries every word of every segment.
import * as os from 'node:os';
import * as path from 'node:path';
import type { Segment } from '../policyContracts';
import { EXPANSION, globs, lexicalProblem, MAX_FIELDS, NO_EXPANDER, type WordExpander, type WordExpansion } from './wordExpansion';

/** Distinct words one decision may have expanded (a 64 KiB line of globs asks instead of waiting). */
export const MAX_WORDS = 256;

export type ExpandedSegment =
  | { kind: 'expanded'; seg: Segment }
  /** A word could not be expanded: `word` as written, and why. */
  | { kind: 'unexpanded'; word: string; why: string };

/** Every source text of `seg` the expander must answer. */
function rawWords(seg: Segment): string[] {
  const out: string[] = [];
  for (const r of seg.argvRaw ?? []) if (r !== null) out.push(r);
  for (const r of seg.redirects) if (r.targetRaw !== undefined) out.push(r.targetRaw);
  for (const n of seg.names ?? []) if (n.raw !== undefined) out.push(n.raw);
  return out;
}

/** The expansions of every segment (index-aligned); a segment without expansion syntax is itself. */
export function expandSegments(segments: readonly Segment[], cwd: string, expander: WordExpander = NO_EXPANDER): ExpandedSegment[] {
  const results: Array<ExpandedSegment | undefined> = segments.map(() => undefined);
  const wanted = new Set<string>();
  segments.forEach((seg, k) => {
    const words = rawWords(seg);
    if (words.length === 0) {
      results[k] = { kind: 'expanded', seg };
      return;
    }
    for (const word of words) {
      const problem = lexicalProblem(word);
      if (problem !== undefined) {
        results[k] = { kind: 'unexpanded', word, why: problem };
        return;
      }
    }
    for (const word of words) wanted.add(word);
  });
  if (wanted.size === 0) return results as ExpandedSegment[];
  if (wanted.size > MAX_WORDS) {
    return segments.map((seg, k) => results[k] ?? { kind: 'unexpanded', word: rawWords(seg)[0], why: EXPANSION.tooManyWords(MAX_WORDS) });
  }
  const list = [...wanted];
  const got = expander.expand(list, cwd);
  const answers = new Map<string, WordExpansion>();
  if (!('failure' in got)) list.forEach((w, k) => answers.set(w, got[k]));
  return segments.map((seg, k) => {
    const done = results[k];
    if (done) return done;
    if ('failure' in got) return { kind: 'unexpanded', word: rawWords(seg)[0], why: got.failure };
    return apply(seg, answers);
  });
}

function apply(seg: Segment, answers: ReadonlyMap<string, WordExpansion>): ExpandedSegment {
  let problem: { word: string; why: string } | undefined;
  const fieldsOf = (raw: string): string[] | undefined => {
    const a = answers.get(raw);
    if (a === undefined || 'error' in a) {
      problem ??= { word: raw, why: a === undefined ? EXPANSION.failed('no answer') : EXPANSION.failed(a.error) };
      return undefined;
    }
    return a.fields;
  };
  const one = (raw: string, why: (n: number) => string): string | undefined => {
    const fields = fieldsOf(raw);
    if (fields === undefined) return undefined;
    if (fields.length !== 1) {
      problem ??= { word: raw, why: why(fields.length) };
      return undefined;
    }
    return fields[0];
  };

  let total = 0;
  const counted = (fields: string[]): string[] => {
    total += fields.length;
    if (total > MAX_FIELDS) problem ??= { word: seg.argvRaw?.find((r) => r !== null) ?? '', why: EXPANSION.tooMany(MAX_FIELDS) };
    return fields;
  };
  const argv: string[] = [];
  const dynamic = new Set(seg.dynamicArgs ?? []);
  const dynamicArgs: number[] = [];
  const globbedArgs: number[] = [];
  seg.argv.forEach((word, i) => {
    const raw = seg.argvRaw?.[i] ?? null;
    if (dynamic.has(i)) dynamicArgs.push(argv.length);
    // The program's name stays as matched (its expansion is judged through `names`).
    if (raw === null || i === 0) {
      argv.push(word);
      return;
    }
    const fields = fieldsOf(raw) ?? [word];
    // A pattern or brace list that bash turns into `-o…` hands the program an option the analysis read
    // as an operand (`sort * ` with a file named `-ofoo`, `sort {-o,x} f`): the options were judged on
    // the words as written, so such a command asks.
    const optionLike = raw.startsWith('-') ? undefined : fields.find((f) => f.startsWith('-'));
    if (optionLike !== undefined) problem ??= { word: raw, why: EXPANSION.optionLike(optionLike) };
    if (globs(raw)) for (let f = 0; f < fields.length; f++) globbedArgs.push(argv.length + f);
    argv.push(...counted(fields));
  });
  const redirects = seg.redirects.map((r) => {
    if (r.targetRaw === undefined) return r;
    const target = one(r.targetRaw, EXPANSION.ambiguous);
    const rest = { ...r };
    delete rest.targetRaw;
    return target === undefined ? rest : { ...rest, target };
  });
  const names = seg.names?.map((n) => {
    if (n.raw === undefined) return n;
    const text = one(n.raw, EXPANSION.nameFields);
    return { text: text ?? n.text };
  });
  if (problem) return { kind: 'unexpanded', ...problem };
  const out: Segment = { ...seg, argv, redirects };
  delete out.argvRaw;
  if (dynamicArgs.length > 0) out.dynamicArgs = dynamicArgs;
  if (globbedArgs.length > 0) out.globbedArgs = globbedArgs;
  if (names) out.names = names;
  return { kind: 'expanded', seg: out };
}

/** One directory a segment may run in, and its words as bash expands them there. */
export interface JudgedIn {
  cwd: string;
  expansion: ExpandedSegment;
}

/** Directories followed for one command: past this many, later segments ask. */
export const MAX_CWDS = 8;

/** The directory a `cd`/`pushd` segment enters (expanded), or undefined when it is not one or not known. */
function cdTarget(seg: Segment): string | undefined {
  const name = seg.argv.at(0);
  if (name !== 'cd' && name !== 'pushd') return undefined;
  const dynamic = new Set(seg.dynamicArgs ?? []);
  let options = true;
  for (let i = 1; i < seg.argv.length; i++) {
    const word = seg.argv[i];
    if (options && word === '--') {
      options = false;
      continue;
    }
    if (options && word.startsWith('-') && word !== '-') continue;
    // `cd -` and `cd $x` ask on their own (workspaceScope.ts); where they lead is not followed.
    return dynamic.has(i) || word === '-' ? undefined : word;
  }
  return os.homedir();
}

/**
 * Every segment's words as bash expands them in each directory it may run in: the command's cwd,
 * and every directory an earlier `cd`/`pushd` of the line (in source order, in any branch) may
 * have entered. `cd sub && cat link/x` is judged in `sub` too. One expander request per directory.
 */
export function expandInCwds(segments: readonly Segment[], cwd: string, expander: WordExpander = NO_EXPANDER): JudgedIn[][] {
  const base = expandSegments(segments, cwd, expander);
  const dirs: string[][] = [];
  let current = [cwd];
  let overflow = false;
  segments.forEach((seg, k) => {
    dirs.push(current);
    const done = base[k];
    const target = done.kind === 'expanded' ? cdTarget(done.seg) : undefined;
    if (target === undefined) return;
    const next = [...new Set([...current, ...current.map((c) => path.resolve(c, target))])];
    if (next.length > MAX_CWDS) overflow = true;
    current = next.slice(0, MAX_CWDS);
  });
  const byDir = new Map<string, ExpandedSegment[]>([[cwd, base]]);
  return segments.map((seg, k) =>
    dirs[k].map((dir) => {
      let expanded = byDir.get(dir);
      if (!expanded) {
        expanded = expandSegments(segments, dir, expander);
        byDir.set(dir, expanded);
      }
      const expansion: ExpandedSegment = overflow && dirs[k].length >= MAX_CWDS ? { kind: 'unexpanded', word: 'cd', why: EXPANSION.tooManyDirs(MAX_CWDS) } : expanded[k];
      return { cwd: dir, expansion };
    }),
  );
}
