// One argument parser with the programs' own syntax (glibc getopt_long as GNU programs use it):
// `--name`, `--name=value`, `--name value` (required values only; an optional value is attached or
// absent), any unique prefix of a long name (an ambiguous one is a problem), clustered short options
// with an attached value (`-n5`, `-ofile`, `-i.bak`), `--` ending the options, `-` an operand, and
// GNU permutation (options after operands) where the program does it. A word it cannot place with
// the spec is a problem: the command asks, naming the word.
import type { OptionDef, ProgramSpec } from './spec';

export interface ArgWord {
  text: string;
  /** Holds an expansion whose value is only known at run time (`text` is then the source text). */
  dynamic: boolean;
  /** The expansion is unquoted: bash may split its value into several words (options among them). */
  splits?: boolean;
}

export interface ParsedOption {
  def: OptionDef;
  /** The value's word holds an unquoted expansion (ArgWord.splits). */
  valueSplits?: boolean;
  /** The option as written (`--outp`, `-o` from the cluster `-uo`). */
  written: string;
  value?: string;
  /** Index into the args of the word holding the value. */
  valueIndex?: number;
  valueDynamic?: boolean;
}

export interface Operand {
  text: string;
  index: number;
  dynamic: boolean;
  splits?: boolean;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: Operand[];
  /** Why the words cannot be read with the spec (the first such word). */
  problem?: string;
  /** The args with every option spelled canonically: abbreviations expanded, clusters split. */
  canonicalShort: string[];
  /** The same with every option that has a long name spelled long. */
  canonicalLong: string[];
}

export const PARSE_PROBLEM = {
  unknown: (name: string, opt: string) => `\`${name} ${opt}\` is not an option the policy knows for \`${name}\``,
  ambiguous: (name: string, opt: string, candidates: readonly string[]) =>
    `\`${name} ${opt}\` is an ambiguous abbreviation (${candidates.map((c) => `--${c}`).join(', ')})`,
  needsValue: (name: string, opt: string) => `\`${name} ${opt}\` needs a value`,
  noValue: (name: string, opt: string) => `\`${name} ${opt}\` takes no value`,
  dynamic: (name: string, word: string) => `\`${name}\` has a word that may be an option but cannot be read statically: \`${word}\``,
} as const;

/** The long option `name` (written without `--`) resolves to, or a problem. */
export function resolveLong(spec: ProgramSpec, name: string, written: string): OptionDef | { problem: string } {
  const exact = spec.longs.get(name);
  if (exact) return exact;
  if (spec.prefixes && name !== '') {
    const hits = [...spec.longs.keys()].filter((l) => l.startsWith(name));
    const defs = new Set(hits.map((h) => spec.longs.get(h)));
    if (defs.size === 1) return spec.longs.get(hits[0]) as OptionDef;
    // glibc lets a prefix of several names through when they are one option; we only do that when
    // they share one definition (aliases), and otherwise ask.
    if (hits.length > 1) return { problem: PARSE_PROBLEM.ambiguous(spec.name, written, hits) };
  }
  return { problem: PARSE_PROBLEM.unknown(spec.name, written) };
}

/**
 * True when a dynamic word's source text cannot expand to a word that starts with `-`: it starts
 * with a static character other than `-`, or is a process substitution (`<(…)` becomes /dev/fd/N).
 */
export function cannotBeOption(source: string): boolean {
  return /^(?:[A-Za-z0-9_./+=:,@%^]|[<>]\()/.test(source);
}

/** A dynamic word's static head `--name=` (`--format="$f"`), whose value alone is unknown. */
const STATIC_LONG_HEAD = /^--([A-Za-z0-9][A-Za-z0-9_-]*)=/;

/** True when the spec has an option that is more than plain output control. */
function hasRiskyOption(spec: ProgramSpec): boolean {
  for (const d of spec.longs.values()) if (d.effect !== 'plain' || d.arg !== 'none') return true;
  for (const d of spec.shorts.values()) if (d.effect !== 'plain' || d.arg !== 'none') return true;
  return false;
}

function longSpelling(def: OptionDef): string {
  return def.long !== undefined ? `--${def.long}` : `-${def.short ?? ''}`;
}

export function parseArgs(spec: ProgramSpec, args: readonly ArgWord[]): ParsedArgs {
  const out: ParsedArgs = { options: [], operands: [], canonicalShort: [], canonicalLong: [] };
  const fail = (problem: string): ParsedArgs => {
    out.problem ??= problem;
    return out;
  };
  const push = (short: string | string[], long: string | string[]): void => {
    out.canonicalShort.push(...(Array.isArray(short) ? short : [short]));
    out.canonicalLong.push(...(Array.isArray(long) ? long : [long]));
  };
  let optionsDone = false;
  let risky: boolean | undefined;
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    const t = w.text;
    const operand = (): void => {
      out.operands.push({ text: t, index: i, dynamic: w.dynamic, ...(w.splits === true ? { splits: true } : {}) });
      push(t, t);
      if (!spec.permute) optionsDone = true;
    };
    if (optionsDone) {
      operand();
      continue;
    }
    if (t === '--' && !w.dynamic && !spec.noDoubleDash) {
      optionsDone = true;
      push(t, t);
      continue;
    }
    if (w.dynamic) {
      const head = STATIC_LONG_HEAD.exec(t);
      if (head) {
        const def = resolveLong(spec, head[1], `--${head[1]}`);
        if ('problem' in def) return fail(def.problem);
        if (def.arg === 'none') return fail(PARSE_PROBLEM.noValue(spec.name, `--${head[1]}`));
        const value = t.slice(head[0].length);
        out.options.push({ def, written: `--${head[1]}`, value, valueIndex: i, valueDynamic: true, ...(w.splits === true ? { valueSplits: true } : {}) });
        push(`--${def.long ?? head[1]}=${value}`, `--${def.long ?? head[1]}=${value}`);
        continue;
      }
      // `"$f"` may expand to `-f/etc/x`: only harmless where every option is a plain switch.
      risky ??= hasRiskyOption(spec);
      if (risky && !cannotBeOption(t)) return fail(PARSE_PROBLEM.dynamic(spec.name, t));
      operand();
      continue;
    }
    if (t === '-' || !t.startsWith('-')) {
      operand();
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(t)) {
      push(t, t);
      continue;
    }
    if (t.startsWith('--')) {
      const body = t.slice(2);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      const written = `--${name}`;
      const def = resolveLong(spec, name, written);
      if ('problem' in def) return fail(def.problem);
      const full = `--${def.long ?? name}`;
      if (eq >= 0) {
        if (def.arg === 'none') return fail(PARSE_PROBLEM.noValue(spec.name, written));
        const value = body.slice(eq + 1);
        out.options.push({ def, written, value, valueIndex: i, valueDynamic: false });
        push(`${full}=${value}`, `${full}=${value}`);
      } else if (def.arg === 'required') {
        if (i + 1 >= args.length || def.attachedOnly) return fail(PARSE_PROBLEM.needsValue(spec.name, written));
        const v = args[++i];
        out.options.push({ def, written, value: v.text, valueIndex: i, valueDynamic: v.dynamic, ...(v.splits === true ? { valueSplits: true } : {}) });
        push([full, v.text], [full, v.text]);
      } else {
        out.options.push({ def, written });
        push(full, full);
      }
      continue;
    }
    // A cluster of short options; a value-taking letter takes the rest of the word or the next word.
    for (let k = 1; k < t.length; k++) {
      const c = t[k];
      const def = spec.shorts.get(c);
      if (!def) return fail(PARSE_PROBLEM.unknown(spec.name, `-${c}`));
      const written = `-${c}`;
      if (def.arg === 'none') {
        out.options.push({ def, written });
        push(written, longSpelling(def));
        continue;
      }
      const rest = t.slice(k + 1);
      if (rest !== '') {
        out.options.push({ def, written, value: rest, valueIndex: i, valueDynamic: false });
        push([written, rest], def.long !== undefined ? [`--${def.long}=${rest}`] : [written, rest]);
      } else if (def.arg === 'required') {
        if (i + 1 >= args.length) return fail(PARSE_PROBLEM.needsValue(spec.name, written));
        const v = args[++i];
        out.options.push({ def, written, value: v.text, valueIndex: i, valueDynamic: v.dynamic, ...(v.splits === true ? { valueSplits: true } : {}) });
        push([written, v.text], [longSpelling(def), v.text]);
      } else {
        out.options.push({ def, written });
        push(written, longSpelling(def));
      }
      break;
    }
  }
  return out;
}
