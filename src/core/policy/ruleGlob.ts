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

const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 4096;

function escapeRegex(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
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

function translate(p: string): string {
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      if (i + 1 < p.length) out += escapeRegex(p[++i]);
      else out += '\\\\';
    } else if (c === '*') {
      while (p[i + 1] === '*') i++;
      out += '[\\s\\S]*';
    } else if (c === '?') {
      out += '[\\s\\S]';
    } else if (c === '[') {
      const close = p.indexOf(']', i + 2);
      if (close < 0) {
        out += '\\[';
        continue;
      }
      let body = p.slice(i + 1, close);
      let negate = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        negate = true;
        body = body.slice(1);
      }
      const cls = body.replace(/[\\\]^[]/g, (m) => `\\${m}`);
      out += `[${negate ? '^' : ''}${cls}]`;
      i = close;
    } else if (c === '{') {
      const end = braceEnd(p, i);
      if (!end || !end.comma) {
        out += '\\{';
        continue;
      }
      out += `(?:${braceAlternatives(p.slice(i + 1, end.close)).map(translate).join('|')})`;
      i = end.close;
    } else {
      out += escapeRegex(c);
    }
  }
  return out;
}

export function normalizeCommandText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Compiles a rule pattern (memoised). */
export function globToRegExp(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let p = normalizeCommandText(pattern);
  let optionalTail = false;
  if (p.endsWith(' *') && !p.endsWith('\\ *')) {
    optionalTail = true;
    p = p.slice(0, -2);
  }
  const re = new RegExp(`^${translate(p)}${optionalTail ? '(?: [\\s\\S]*)?' : ''}$`, 'u');
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, re);
  return re;
}

/** True when the normalised `text` matches the rule pattern. An empty text or pattern never matches. */
export function globMatches(pattern: string, text: string): boolean {
  if (text === '' || pattern.trim() === '') return false;
  return globToRegExp(pattern).test(text);
}

/** Escapes text so it matches itself exactly as a rule pattern. */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}]/g, (m) => `\\${m}`);
}

export interface CompiledRules<R extends { match: string }> {
  /** The first rule (in list order) whose pattern matches the normalised text, or null. */
  first(text: string): R | null;
}

interface CompiledRule<R> {
  rule: R;
  order: number;
  re: RegExp;
  /** A literal every matching text contains: a cheap test before the regex. */
  literal?: string;
}

/** The pattern's first word when it is plain literal text (so a matching text starts with it). */
function literalHead(p: string): string | undefined {
  const space = p.indexOf(' ');
  const head = space < 0 ? p : p.slice(0, space);
  return /[\\*?[\]{}]/.test(head) || head === '' ? undefined : head;
}

function requiredLiteral(p: string): string | undefined {
  if (/[\\?[\]{}]/.test(p)) return undefined;
  const body = p.endsWith(' *') ? p.slice(0, -2) : p;
  let best = '';
  for (const piece of body.split('*')) if (piece.length > best.length) best = piece;
  return best || undefined;
}

const compiledSets = new WeakMap<object, { matches: string[]; set: CompiledRules<{ match: string }> }>();

/**
 * Compiles a rule list for first-match lookups. Rules whose first word is literal are indexed by
 * it, so a text only meets the rules that could match its first word plus the rules that start
 * with a wildcard; those are screened by a required literal before their regex runs. Memoised per
 * list object and rebuilt when its patterns change.
 */
export function compileRules<R extends { match: string }>(rules: readonly R[]): CompiledRules<R> {
  const hit = compiledSets.get(rules);
  if (hit && hit.matches.length === rules.length && hit.matches.every((m, i) => m === rules[i].match)) {
    return hit.set as CompiledRules<R>;
  }
  const byHead = new Map<string, CompiledRule<R>[]>();
  const floating: CompiledRule<R>[] = [];
  rules.forEach((rule, order) => {
    const p = normalizeCommandText(rule.match);
    if (p === '') return;
    const compiled: CompiledRule<R> = { rule, order, re: globToRegExp(rule.match) };
    const literal = requiredLiteral(p);
    if (literal) compiled.literal = literal;
    const head = literalHead(p);
    if (head === undefined) floating.push(compiled);
    else byHead.set(head, [...(byHead.get(head) ?? []), compiled]);
  });
  const test = (c: CompiledRule<R>, text: string): boolean => (!c.literal || text.includes(c.literal)) && c.re.test(text);
  const set: CompiledRules<R> = {
    first(text: string): R | null {
      if (text === '') return null;
      const space = text.indexOf(' ');
      const headed = byHead.get(space < 0 ? text : text.slice(0, space)) ?? [];
      // Merge the two ordered lists so list order decides.
      let i = 0;
      let j = 0;
      while (i < headed.length || j < floating.length) {
        const c = j >= floating.length || (i < headed.length && headed[i].order < floating[j].order) ? headed[i++] : floating[j++];
        if (test(c, text)) return c.rule;
      }
      return null;
    },
  };
  compiledSets.set(rules, { matches: rules.map((r) => r.match), set });
  return set;
}
