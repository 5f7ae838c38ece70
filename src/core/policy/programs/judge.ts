// What a program's words mean once read with its spec: the paths it reads and writes, the canonical
// spellings for rule matching, and why the command must ask (an option not in the spec, a writer,
// a runner, a list of file names, a script the analysis cannot see).
import { parseArgs, type ArgWord, type ParsedArgs, type ParsedOption } from './getopt';
import type { ProgramSpec } from './spec';

export interface PathArg {
  word: string;
  /** Index into the args (argv index - 1) of the word holding it. */
  index: number;
  dynamic: boolean;
  writes: boolean;
}

export interface ProgramJudgement {
  /** Why the command asks (opaque), or undefined when every word is understood and harmless. */
  reason?: string;
  /** Words that are paths the program reads or writes (operands and option values). */
  paths: PathArg[];
  /** The argument lists (without argv0) with canonical spellings, when they differ from the written one. */
  canonical: string[][];
}

export const SPEC_REASON = {
  writes: (name: string, option: string) => `\`${name} ${option}\` writes files`,
  runs: (name: string, option: string) => `\`${name} ${option}\` names a program to run`,
  fileList: (name: string, option: string) => `\`${name} ${option}\` reads a list of file names the analysis cannot see`,
  script: (name: string, option: string) => `\`${name} ${option}\` reads a script the analysis cannot see`,
  config: (name: string, option: string) => `\`${name} ${option}\` sets configuration that can name programs or files`,
  ask: (name: string, option: string) => `\`${name} ${option}\` is not approved without asking`,
  inplace: (name: string, option: string) => `\`${name} ${option}\` rewrites its input files`,
  operandWrites: (name: string, what: string) => `\`${name}\` writes its ${what}`,
  pageFile: (name: string, word: string) =>
    `\`${name} ${word}\` renders a page file, which can include any other file (\`.so\`, \`.nx\`)`,
  splits: (name: string, word: string) =>
    `\`${name}\` has \`${word}\`, an unquoted expansion that is not a path: bash splits its value into words, which may be options`,
} as const;

/** A program module: how one program (and its aliases) is judged. */
/**
 * Lines that must run without asking, and lines that must ask, under the built-in list plus an allow
 * rule for the program (`name *`), in a small workspace (a git repository with README.md, a.txt,
 * b.txt, data.json, src/a.ts, archive.tar): one table-driven test (programs/examples.test.ts) checks
 * every module's, so what the policy knows of a program is shown beside it.
 */
export interface ProgramExamples {
  allow: readonly string[];
  ask: readonly string[];
}

export interface ProgramModule {
  names: readonly string[];
  examples?: ProgramExamples;
  /** The option spec, for tests and for programs judged generically. */
  spec?: ProgramSpec;
  /** undefined: this form has no spec (the older option table judges it). */
  judge(name: string, args: readonly ArgWord[]): ProgramJudgement | undefined;
}

/** The reason an option's effect makes the command ask, or undefined for plain and path-reading options. */
export function effectReason(name: string, o: ParsedOption): string | undefined {
  const opt = o.written;
  switch (o.def.effect) {
    case 'plain':
    case 'reads':
      return undefined;
    case 'writes':
      return SPEC_REASON.writes(name, opt);
    case 'inplace':
      return SPEC_REASON.inplace(name, opt);
    case 'runs':
      return SPEC_REASON.runs(name, opt);
    case 'fileList':
      return SPEC_REASON.fileList(name, opt);
    case 'script':
      return SPEC_REASON.script(name, opt);
    case 'config':
      return SPEC_REASON.config(name, opt);
    case 'ask':
      return SPEC_REASON.ask(name, opt);
  }
}

/** The canonical argument lists that differ from the written ones. */
export function canonicalOf(parsed: ParsedArgs, args: readonly ArgWord[]): string[][] {
  const written = args.map((a) => a.text).join('\u0000');
  const out: string[][] = [];
  for (const c of [parsed.canonicalShort, parsed.canonicalLong]) {
    const key = c.join('\u0000');
    if (key !== written && !out.some((o) => o.join('\u0000') === key)) out.push(c);
  }
  return out;
}

/** Option values that are paths (read or written). */
export function optionPaths(parsed: ParsedArgs): PathArg[] {
  const out: PathArg[] = [];
  for (const o of parsed.options) {
    if (o.value === undefined || o.valueIndex === undefined) continue;
    const e = o.def.effect;
    if (e === 'reads' || e === 'writes' || e === 'fileList' || e === 'script') {
      out.push({ word: o.value, index: o.valueIndex, dynamic: o.valueDynamic ?? false, writes: e === 'writes' });
    }
  }
  return out;
}

/** True when some option of the spec does more than change what is printed. */
function hasNonPlainOption(spec: ProgramSpec): boolean {
  for (const d of spec.longs.values()) if (d.effect !== 'plain') return true;
  for (const d of spec.shorts.values()) if (d.effect !== 'plain') return true;
  return false;
}

/**
 * The generic judgement: options by their effect, operands by the spec's operand kind. `inplace`
 * options make every file operand a written path.
 */
export function judgeBySpec(spec: ProgramSpec, name: string, args: readonly ArgWord[], parsed = parseArgs(spec, args)): ProgramJudgement {
  const paths = optionPaths(parsed);
  let reason = parsed.problem;
  const inplace = parsed.options.some((o) => o.def.effect === 'inplace');
  for (const o of parsed.options) reason ??= effectReason(name, o);
  // A value or pattern only known at run time was read as one word; unquoted, bash splits it (paths
  // ask on their own, in workspaceScope.ts).
  // Where the program reads no paths and every option it has only changes output (`basename`,
  // `tr`), or options end at the first operand (`printf`, `type`), the pieces are inert.
  const inert = spec.operands === 'none' && !hasNonPlainOption(spec);
  for (const o of parsed.options) if (o.valueSplits === true && o.def.effect === 'plain' && !inert) reason ??= SPEC_REASON.splits(name, o.value ?? '');
  let operands = parsed.operands;
  if (spec.operands === 'none') operands = [];
  else if (spec.operands === 'patternThenReads') {
    const given = parsed.options.some((o) => spec.patternGivenBy?.includes(o.def.canonical));
    if (!given) operands = operands.slice(1);
  }
  for (const op of operands) paths.push({ word: op.text, index: op.index, dynamic: op.dynamic, writes: inplace });
  const inertOperands = spec.operands === 'none' && (!spec.permute || !hasNonPlainOption(spec));
  for (const op of parsed.operands) if (op.splits === true && !operands.includes(op) && !inertOperands) reason ??= SPEC_REASON.splits(name, op.text);
  // A word that is not a path but starts with a glob character is still expanded by bash: a match
  // named like an option (`-s…`) would reach the program as one. workspaceScope asks for those.
  for (const op of parsed.operands) {
    if (!operands.includes(op) && !op.dynamic && /^[*?[]/.test(op.text)) paths.push({ word: op.text, index: op.index, dynamic: false, writes: false });
  }
  const out: ProgramJudgement = { paths, canonical: canonicalOf(parsed, args) };
  if (reason !== undefined) out.reason = reason;
  return out;
}

export function simpleProgram(spec: ProgramSpec, names: readonly string[] = [spec.name]): ProgramModule {
  return { names, spec, judge: (name, args) => judgeBySpec(spec, name, args) };
}
