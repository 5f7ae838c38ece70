// The glob language of policy rules (`agentBash.patterns[].match`), matched against normalised
// command text (argv joined by single spaces, every whitespace run collapsed to one space).
//
// It follows picomatch's syntax with the choices a command line needs:
//   *        any run of characters, INCLUDING `/`, spaces, dots and `..` segments (`**` is the same).
//            picomatch's own `*` stops at `/` and refuses `..` even with `bash: true`, so a deny
//            rule `rm *` would miss `rm -rf ../x`; that is why this is a translation, not a call.
//   ?        exactly one character (any, including `/`).
//   [abc]    one character of a class; `[!a]` / `[^a]` negate; `a-z` ranges.
//   {a,b}    alternatives (may nest); a brace without a top-level comma is literal.
//   \x       the character x literally (how an exact command containing `*` is written).
//   A trailing ` *` also matches nothing: `ls *` matches `ls` and `ls -la` but not `lsblk`.
// Everything else is literal: no negation (`!`), no extglobs (`@(…)`), case-sensitive, anchored
// at both ends. The pattern itself is trimmed and its whitespace runs collapsed like the text.
//
// Matching never backtracks: braces are expanded at compile time into at most
// MAX_RULE_ALTERNATIVES brace-free alternatives, each alternative is split on `*` into fixed-length
// pieces, and the pieces are found leftmost-first in one left-to-right pass (for `*`-separated
// fixed-length pieces the leftmost occurrence is always a safe choice). The cost of one match is
// at most text length × pattern length, and literal pieces use the native `indexOf`. Limits on a
// rule's size (checked by the rules schema) bound the pattern side: see RULE_LIMITS.
import { cpuNow } from '../../util/cpuClock';
import { exactRuleText } from './exactRule';

/** Size limits for one rule; the rules schema rejects larger ones with these numbers. */
export const RULE_LIMITS = {
  /** Characters in `match`. */
  maxLength: 512,
  /** Brace-free alternatives after expanding every `{a,b}` (including the optional ` *` tail). */
  maxAlternatives: 64,
} as const;

export class RuleTooComplexError extends Error {}

/** One position of a fixed-length piece: a literal character, `?`, or a class. */
type Atom = string | { any: true } | { set: string; negate: boolean };

/** A fixed-length run of atoms between stars. */
interface Piece {
  atoms: Atom[];
  /** The whole piece when it is literal (found with the native `indexOf`). */
  literal?: string;
  /** Its longest literal run, where candidates are looked for first. */
  anchor?: { text: string; offset: number };
}

interface Alternative {
  /** The pieces between stars; `stars` is false when the alternative has no `*` at all. */
  pieces: Piece[];
  stars: boolean;
}

/**
 * Work left for one decision's matching, in character comparisons. Each match is linear in the
 * text for a fixed pattern, but 1,000 rules against a 64 KiB text could still add up: past the
 * budget the lookup stops and the policy asks instead (MatchBudgetError).
 */
export interface MatchBudget {
  left: number;
  /**
   * cpuNow() past which matching stops too: the work count bounds the steady state, the
   * clock also catches a cold start (code not yet compiled, a collection) on a large text.
   */
  deadline?: number;
  /** Spends since the last look at the clock. */
  spends?: number;
}

export class MatchBudgetError extends Error {}

/** Spends between two looks at the clock. */
const SPENDS_PER_CLOCK_CHECK = 16;

function spend(budget: MatchBudget | undefined, work: number): void {
  if (!budget) return;
  if ((budget.left -= work) < 0) throw new MatchBudgetError('matching the rules against this command took too much work');
  if (budget.deadline === undefined) return;
  budget.spends = (budget.spends ?? 0) + 1;
  if (budget.spends < SPENDS_PER_CLOCK_CHECK) return;
  budget.spends = 0;
  if (cpuNow() > budget.deadline) throw new MatchBudgetError('matching the rules against this command took too long');
}

interface Compiled {
  alternatives: Alternative[];
}

/** Index of the `}` closing the brace at `open`, and whether it has a top-level comma. */
function braceEnd(p: string, open: number): { close: number; comma: boolean } | undefined {
  let depth = 0;
  let comma = false;
  for (let i = open; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
    } else if (c === '{') {
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0) return { close: i, comma };
    } else if (c === ',' && depth === 1) {
      comma = true;
    }
  }
  return undefined;
}

/** Splits the inside of a brace on its top-level commas. */
function braceAlternatives(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

/** Every brace-free spelling of `p` (a brace without a top-level comma stays literal, escaped). */
function expandBraces(p: string): string[] {
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      // A class is one unit: a brace inside it is a member, not an alternative.
      const close = p.indexOf(']', i + 2);
      if (close > 0) i = close;
      continue;
    }
    if (c !== '{') continue;
    const end = braceEnd(p, i);
    if (!end || !end.comma) {
      const rest = expandBraces(p.slice(i + 1));
      return rest.map((r) => `${p.slice(0, i)}\\{${r}`);
    }
    const out: string[] = [];
    const tails = expandBraces(p.slice(end.close + 1));
    for (const alt of braceAlternatives(p.slice(i + 1, end.close))) {
      for (const head of expandBraces(alt)) {
        for (const tail of tails) {
          out.push(`${p.slice(0, i)}${head}${tail}`);
          if (out.length > RULE_LIMITS.maxAlternatives) throw new RuleTooComplexError();
        }
      }
    }
    return out;
  }
  return [p];
}

function toPiece(atoms: Atom[]): Piece {
  const piece: Piece = { atoms };
  let best = { text: '', offset: 0 };
  let run = '';
  let start = 0;
  atoms.forEach((a, k) => {
    const ch = typeof a === 'string' ? a : 'set' in a && !a.negate && a.set.length === 1 ? a.set : undefined;
    if (ch === undefined) {
      run = '';
      return;
    }
    if (run === '') start = k;
    run += ch;
    if (run.length > best.text.length) best = { text: run, offset: start };
  });
  if (best.text.length === atoms.length && atoms.length > 0) piece.literal = best.text;
  else if (best.text.length > 0) piece.anchor = best;
  return piece;
}

/** Parses one brace-free alternative into star-separated pieces of atoms. */
function parseAlternative(p: string): Alternative {
  const pieces: Atom[][] = [[]];
  let stars = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    const piece = pieces[pieces.length - 1];
    if (c === '\\') {
      piece.push(i + 1 < p.length ? p[++i] : '\\');
    } else if (c === '*') {
      while (p[i + 1] === '*') i++;
      stars = true;
      pieces.push([]);
    } else if (c === '?') {
      piece.push({ any: true });
    } else if (c === '[') {
      const close = p.indexOf(']', i + 2);
      if (close < 0) {
        piece.push('[');
        continue;
      }
      let body = p.slice(i + 1, close);
      let negate = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        negate = true;
        body = body.slice(1);
      }
      piece.push({ set: expandClass(body), negate });
      i = close;
    } else {
      piece.push(c);
    }
  }
  return { pieces: pieces.map(toPiece), stars };
}

/** `a-cx` → `abcx` (ranges spelled out; a class is at most one pattern long, so this stays small). */
function expandClass(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    if (body[i + 1] === '-' && i + 2 < body.length) {
      const from = body.charCodeAt(i);
      const to = body.charCodeAt(i + 2);
      // Wide ranges are kept as their end points plus a marker test (see atomMatches).
      if (to >= from && to - from <= 256) for (let k = from; k <= to; k++) out += String.fromCharCode(k);
      else out += `\u0000${body[i]}${body[i + 2]}`;
      i += 2;
    } else {
      out += body[i];
    }
  }
  return out;
}

function atomMatches(a: Atom, ch: string): boolean {
  if (typeof a === 'string') return a === ch;
  if ('any' in a) return true;
  let hit = a.set.includes(ch);
  if (!hit) {
    // Wide ranges: `\0` followed by the two end points.
    for (let k = a.set.indexOf('\u0000'); k >= 0; k = a.set.indexOf('\u0000', k + 3)) {
      if (ch >= a.set[k + 1] && ch <= a.set[k + 2]) {
        hit = true;
        break;
      }
    }
  }
  return hit !== a.negate;
}

function pieceAt(piece: Piece, text: string, at: number, budget?: MatchBudget): boolean {
  const atoms = piece.atoms;
  let k = 0;
  while (k < atoms.length && atomMatches(atoms[k], text[at + k])) k++;
  spend(budget, k + 1);
  return k === atoms.length;
}

/** Leftmost position >= from where `piece` matches and ends by `limit`, or -1. */
function findPiece(piece: Piece, text: string, from: number, limit: number, budget?: MatchBudget): number {
  const len = piece.atoms.length;
  if (piece.literal !== undefined) {
    const at = text.indexOf(piece.literal, from);
    spend(budget, ((at < 0 ? text.length : at) - from) / 16 + 1);
    return at >= 0 && at + len <= limit ? at : -1;
  }
  if (piece.anchor) {
    // Candidates are where the longest literal run occurs; only those are compared atom by atom.
    const { text: run, offset } = piece.anchor;
    for (let hit = text.indexOf(run, from + offset); hit >= 0; hit = text.indexOf(run, hit + 1)) {
      const at = hit - offset;
      if (at + len > limit) return -1;
      if (pieceAt(piece, text, at, budget)) return at;
    }
    return -1;
  }
  for (let at = from; at + len <= limit; at++) if (pieceAt(piece, text, at, budget)) return at;
  return -1;
}

function matchAlternative(alt: Alternative, text: string, budget?: MatchBudget): boolean {
  const { pieces } = alt;
  if (!alt.stars) return pieces[0].atoms.length === text.length && pieceAt(pieces[0], text, 0, budget);
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (first.atoms.length + last.atoms.length > text.length) return false;
  if (!pieceAt(first, text, 0, budget)) return false;
  const lastAt = text.length - last.atoms.length;
  if (!pieceAt(last, text, lastAt, budget)) return false;
  let pos = first.atoms.length;
  for (let k = 1; k < pieces.length - 1; k++) {
    const at = findPiece(pieces[k], text, pos, lastAt, budget);
    if (at < 0) return false;
    pos = at + pieces[k].atoms.length;
  }
  return true;
}

const cache = new Map<string, Compiled>();
const CACHE_LIMIT = 4096;

/** Whitespace runs become one space, ends trimmed. Fast path: most texts are already normal. */
export function normalizeCommandText(text: string): string {
  return /\s\s|[^\S ]|^\s|\s$/.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}

/** Compiles a rule pattern (memoised). Throws RuleTooComplexError past RULE_LIMITS. */
function compilePattern(pattern: string): Compiled {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let p = normalizeCommandText(pattern);
  if (p.length > RULE_LIMITS.maxLength) throw new RuleTooComplexError();
  const spellings: string[] = [];
  if (p.endsWith(' *') && !p.endsWith('\\ *')) {
    // A trailing ` *` also matches nothing: `ls *` matches `ls`.
    p = p.slice(0, -2);
    for (const e of expandBraces(p)) spellings.push(e, `${e} *`);
  } else {
    spellings.push(...expandBraces(p));
  }
  if (spellings.length > RULE_LIMITS.maxAlternatives) throw new RuleTooComplexError();
  const compiled: Compiled = { alternatives: spellings.map(parseAlternative) };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}

/** Why a pattern is too big to be a rule, or undefined when it is within RULE_LIMITS. */
export function ruleTooComplex(pattern: string): string | undefined {
  if (normalizeCommandText(pattern).length > RULE_LIMITS.maxLength) return `match is longer than ${RULE_LIMITS.maxLength} characters`;
  try {
    compilePattern(pattern);
    return undefined;
  } catch (err) {
    if (err instanceof RuleTooComplexError) return `match expands to more than ${RULE_LIMITS.maxAlternatives} brace alternatives`;
    throw err;
  }
}

function testCompiled(c: Compiled, text: string, budget?: MatchBudget): boolean {
  for (const alt of c.alternatives) if (matchAlternative(alt, text, budget)) return true;
  return false;
}

/** True when the normalised `text` matches the rule pattern. An empty text or pattern never matches. */
export function globMatches(pattern: string, text: string): boolean {
  if (text === '' || pattern.trim() === '') return false;
  try {
    return testCompiled(compilePattern(pattern), text);
  } catch (err) {
    if (err instanceof RuleTooComplexError) return false;
    throw err;
  }
}

/** Escapes text so it matches itself exactly as a rule pattern. */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}]/g, (m) => `\\${m}`);
}

/** One character an atom matches: itself, `x` for `?`, a member of a class (or one outside a negated class). */
function atomExample(a: Atom): string {
  if (typeof a === 'string') return a;
  if ('any' in a) return 'x';
  if (!a.negate) return a.set.startsWith('\u0000') ? a.set[1] : a.set[0];
  return [...'x_0~'].find((ch) => atomMatches(a, ch)) ?? '';
}

/**
 * Texts the pattern was written for: each brace alternative spelled out, every `*` filled with each
 * of `fills` in turn (`echo secret*` with `-a3` → `echo secret-a3`), `?` and classes with a member.
 * Only texts the pattern itself matches are returned, normalised and without repeats.
 */
export function globExamples(pattern: string, fills: readonly string[]): string[] {
  let compiled: Compiled;
  try {
    compiled = compilePattern(pattern);
  } catch (err) {
    if (err instanceof RuleTooComplexError) return [];
    throw err;
  }
  const out = new Set<string>();
  for (const alt of compiled.alternatives) {
    const pieces = alt.pieces.map((piece) => piece.atoms.map(atomExample).join(''));
    for (const fill of alt.stars ? fills : ['']) {
      const text = normalizeCommandText(pieces.join(fill));
      if (text !== '' && testCompiled(compiled, text)) out.add(text);
    }
  }
  return [...out];
}

/** A rule as the matcher sees it: a glob, or with `exact` the words of exactRule.ts. */
export interface MatchableRule {
  match: string;
  exact?: boolean;
}

export interface CompiledRules<R extends MatchableRule> {
  /**
   * The first rule (in list order) that matches and that `accept` takes (all, when absent), or null.
   * Glob rules are matched against the normalised `text`; exact rules against `exactText` (a
   * command's canonical words, exactRule.ts), and never when it is absent. Throws MatchBudgetError
   * past the budget.
   */
  first(text: string, budget?: MatchBudget, exactText?: string, accept?: (rule: R) => boolean): R | null;
  /** Every rule that matches and that `accept` takes, in list order. */
  all(text: string, budget?: MatchBudget, exactText?: string, accept?: (rule: R) => boolean): R[];
}

interface CompiledRule<R> {
  rule: R;
  order: number;
  compiled: Compiled;
  /** A literal every matching text contains: a cheap test before the matcher. */
  literal?: string;
  /** The literal's three-character hashes (trigramScreen): all must occur in a text that contains it. */
  grams?: Uint32Array;
}

/** Texts at least this long are indexed by trigramScreen before the rules' literals are looked for. */
const SCREEN_MIN_TEXT = 512;
const GRAM_BITS = 1 << 16;

function gramHash(a: number, b: number, c: number): number {
  return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d)) >>> 16;
}

/** The distinct trigram hashes of a literal (none when it is shorter than three characters). */
function literalGrams(literal: string): Uint32Array | undefined {
  if (literal.length < 3) return undefined;
  const seen = new Set<number>();
  for (let i = 0; i + 2 < literal.length; i++) seen.add(gramHash(literal.charCodeAt(i), literal.charCodeAt(i + 1), literal.charCodeAt(i + 2)));
  return Uint32Array.from(seen);
}

/**
 * One pass over a long text marks every trigram it holds in a 64 Ki-bit set. A rule's literal can
 * occur in the text only if each of its trigrams is marked, so most rules are ruled out in time
 * proportional to their literal, not to the text (a 64 KiB command met by 1,000 rules is scanned
 * once instead of 1,000 times). A saturated set rules nothing out and the plain search still runs.
 */
function trigramScreen(text: string): Uint8Array {
  const bits = new Uint8Array(GRAM_BITS >>> 3);
  for (let i = 0; i + 2 < text.length; i++) {
    const h = gramHash(text.charCodeAt(i), text.charCodeAt(i + 1), text.charCodeAt(i + 2));
    bits[h >>> 3] |= 1 << (h & 7);
  }
  return bits;
}

function mayContain(screen: Uint8Array, grams: Uint32Array): boolean {
  for (let i = 0; i < grams.length; i++) {
    const h = grams[i];
    if ((screen[h >>> 3] & (1 << (h & 7))) === 0) return false;
  }
  return true;
}

/** The pattern's first word when it is plain literal text (so a matching text starts with it). */
function literalHead(p: string): string | undefined {
  const space = p.indexOf(' ');
  const head = space < 0 ? p : p.slice(0, space);
  return /[\\*?[\]{}]/.test(head) || head === '' ? undefined : head;
}

/**
 * A literal every text matching the rule contains: the longest literal run of the first alternative
 * that also occurs within a literal run of every other alternative. One `includes` then rules out
 * most texts before any alternative is tried.
 */
function requiredLiteral(c: Compiled): string | undefined {
  const runs = (alt: Alternative): string[] => alt.pieces.flatMap((p) => p.literal ?? p.anchor?.text ?? []);
  const [first, ...others] = c.alternatives.map(runs);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the type cannot prove alternatives non-empty; an empty list must give no literal, not a throw on `[...undefined]`
  if (!first) return undefined;
  for (const candidate of [...first].sort((x, y) => y.length - x.length)) {
    if (others.every((rs) => rs.some((r) => r.includes(candidate)))) return candidate;
  }
  return undefined;
}

const compiledSets = new WeakMap<object, { keys: string[]; set: CompiledRules<MatchableRule> }>();

function ruleKey(r: MatchableRule): string {
  return r.exact === true ? `exact\0${r.match}` : r.match;
}

/**
 * Compiles a rule list for first-match lookups. Rules whose first word is literal are indexed by
 * it, so a text only meets the rules that could match its first word plus the rules that start
 * with a wildcard; those are screened by a required literal before the matcher runs. Memoised per
 * list object and rebuilt when its patterns change.
 */
export function compileRules<R extends MatchableRule>(rules: readonly R[]): CompiledRules<R> {
  const hit = compiledSets.get(rules);
  if (hit && hit.keys.length === rules.length && hit.keys.every((k, i) => k === ruleKey(rules[i]))) {
    return hit.set as unknown as CompiledRules<R>;
  }
  const byHead = new Map<string, CompiledRule<R>[]>();
  const floating: CompiledRule<R>[] = [];
  const exactByText = new Map<string, Array<{ rule: R; order: number }>>();
  rules.forEach((rule, order) => {
    if (rule.exact === true) {
      // The schema rejects an exact match that does not parse; one that got here anyway matches nothing.
      const canonical = exactRuleText(rule.match);
      if (canonical !== undefined) exactByText.set(canonical, [...(exactByText.get(canonical) ?? []), { rule, order }]);
      return;
    }
    const p = normalizeCommandText(rule.match);
    if (p === '') return;
    let pattern: Compiled;
    try {
      pattern = compilePattern(rule.match);
    } catch (err) {
      // The rules schema rejects such rules; one that got here anyway matches nothing.
      if (err instanceof RuleTooComplexError) return;
      throw err;
    }
    const compiled: CompiledRule<R> = { rule, order, compiled: pattern };
    const literal = requiredLiteral(pattern);
    if (literal) {
      compiled.literal = literal;
      const grams = literalGrams(literal);
      if (grams) compiled.grams = grams;
    }
    const head = literalHead(p);
    if (head === undefined) floating.push(compiled);
    else byHead.set(head, [...(byHead.get(head) ?? []), compiled]);
  });
  const test = (c: CompiledRule<R>, text: string, screen: () => Uint8Array | undefined, budget?: MatchBudget): boolean => {
    if (c.literal) {
      const bits = c.grams && screen();
      if (bits && c.grams) {
        spend(budget, c.grams.length / 16 + 1);
        if (!mayContain(bits, c.grams)) return false;
      }
      // The literal pre-check scans the whole text: it counts against the budget like any other scan.
      spend(budget, text.length / 16 + 1);
      if (!text.includes(c.literal)) return false;
    }
    return testCompiled(c.compiled, text, budget);
  };
  /** Every matching rule `accept` takes, in list order; only the first when `one`. */
  const scan = (text: string, budget: MatchBudget | undefined, exactText: string | undefined, accept: ((rule: R) => boolean) | undefined, one: boolean): R[] => {
    const found: Array<{ rule: R; order: number }> = [];
    const exact = exactText === undefined ? undefined : exactByText.get(exactText);
    if (exact) for (const e of exact) if (!accept || accept(e.rule)) found.push(e);
    if (text !== '') {
      const space = text.indexOf(' ');
      const headed = byHead.get(space < 0 ? text : text.slice(0, space)) ?? [];
      // Built the first time a rule with a literal meets a long text.
      let bits: Uint8Array | undefined;
      const screen = (): Uint8Array | undefined => {
        if (bits === undefined && text.length >= SCREEN_MIN_TEXT) {
          spend(budget, text.length / 16 + 1);
          bits = trigramScreen(text);
        }
        return bits;
      };
      // An exact rule found first bounds the search: a glob rule after it in the list cannot come first.
      const before = one && found.length ? Math.min(...found.map((f) => f.order)) : Infinity;
      // Merge the two ordered lists so list order decides.
      let i = 0;
      let j = 0;
      while (i < headed.length || j < floating.length) {
        const c = j >= floating.length || (i < headed.length && headed[i].order < floating[j].order) ? headed[i++] : floating[j++];
        if (c.order > before) break;
        if (accept && !accept(c.rule)) continue;
        if (test(c, text, screen, budget)) {
          found.push(c);
          if (one) break;
        }
      }
    }
    found.sort((a, b) => a.order - b.order);
    return (one ? found.slice(0, 1) : found).map((f) => f.rule);
  };
  const set: CompiledRules<R> = {
    first(text, budget, exactText, accept) {
      return scan(text, budget, exactText, accept, true)[0] ?? null;
    },
    all(text, budget, exactText, accept) {
      return scan(text, budget, exactText, accept, false);
    },
  };
  compiledSets.set(rules, { keys: rules.map(ruleKey), set: set as unknown as CompiledRules<MatchableRule> });
  return set;
}
