// Pipeline stage 6 (docs/ARCHITECTURE.md, Pipeline): internal URLs (`skill://x`, `artifact://3`,
// `local://out.txt`, …) in a command, its env values and its cwd become real filesystem paths before
// anything runs. Unlike oh-my-pi, a URL that cannot be resolved is an error naming it: leaving it in
// place only fails later, less clearly.
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { UrlResolver } from './contracts';
import { ToolError } from './errors';

export const INTERNAL_URL_SCHEMES = ['skill', 'agent', 'artifact', 'plan', 'memory', 'rule', 'local'] as const;
export type InternalUrlScheme = (typeof INTERNAL_URL_SCHEMES)[number];

/** How to write the text literally instead: a quote split stops it from being one URL token. */
const LITERAL_HINT = "To pass it as literal text, split it across quotes (e.g. 'skill:''//name').";

export function unresolvedUrlMessage(url: string): string {
  return `Cannot resolve internal URL "${url}". ${LITERAL_HINT}`;
}
export function urlResolverFailedMessage(url: string, reason: string): string {
  return `Cannot resolve internal URL "${url}": ${reason}`;
}
export function urlWithExpansionMessage(url: string): string {
  return `Cannot resolve internal URL "${url}": it contains shell expansion. Use a literal URL or a filesystem path.`;
}

export interface ExpandOptions {
  resolver: UrlResolver;
  /** true for command text: each path becomes one single-quoted shell word. false for env and cwd. */
  escape: boolean;
  /** Create the parent directory of every `local://` path (so `> local://a/b.txt` can be written). */
  ensureLocalParentDirs?: boolean;
}

interface UrlMatch {
  start: number;
  end: number;
  /** Normalised (`local:/x` → `local://x`). */
  url: string;
  scheme: InternalUrlScheme;
}

const SCHEME_ALT = INTERNAL_URL_SCHEMES.join('|');
/** At a position: `scheme://` with at least one character after it, or the single-slash `local:/x`. */
const URL_START = new RegExp(`(?:(${SCHEME_ALT})://|(local):/(?!/))(?=[^\\s'"\`)\\\\;&|<>])`, 'y');
/** A bare URL is not a URL when glued to a path or a word: `/repo/local:/x`, `./local:/x`, `notlocal:/x`, `not-local:/x`. */
const BAD_PRECEDING = /[\w./\\-]/;
/** Where a bare token ends. oh-my-pi's set plus the shell's own separators and redirections. */
const BARE_END = /[\s'"`)\\;&|<>]/;

function normalizeUrl(raw: string): { url: string; scheme: InternalUrlScheme } | undefined {
  const m = /^([a-z]+):\/(\/?)/.exec(raw);
  if (!m) return undefined;
  const scheme = m[1] as InternalUrlScheme;
  if (!(INTERNAL_URL_SCHEMES as readonly string[]).includes(scheme)) return undefined;
  if (m[2] === '') {
    if (scheme !== 'local') return undefined;
    return { url: `local://${raw.slice('local:/'.length)}`, scheme };
  }
  return { url: raw, scheme };
}

function urlStartsAt(text: string, i: number): boolean {
  URL_START.lastIndex = i;
  return URL_START.test(text);
}

interface Ctx {
  /** `top`, or a command substitution, which starts a fresh quoting context. */
  kind: 'top' | 'paren' | 'backtick';
  quote: "'" | '"' | null;
  parens: number;
}

/** Finds URL tokens the way the shell would see words: quote- and substitution-aware. */
export function findInternalUrls(text: string): UrlMatch[] {
  const found: UrlMatch[] = [];
  const stack: Ctx[] = [{ kind: 'top', quote: null, parens: 0 }];
  let i = 0;
  while (i < text.length) {
    const ctx = stack[stack.length - 1]!;
    const c = text[i]!;
    if (ctx.quote === "'") {
      if (c === "'") ctx.quote = null;
      i++;
      continue;
    }
    if (c === '\\') {
      // An escaped quote, backtick or `$` stays literal, and so does whatever it escapes.
      i += 2;
      continue;
    }
    if (c === '$' && text[i + 1] === '(') {
      stack.push({ kind: 'paren', quote: null, parens: 0 });
      i += 2;
      continue;
    }
    if (c === '`') {
      if (ctx.kind === 'backtick' && stack.length > 1) stack.pop();
      else stack.push({ kind: 'backtick', quote: null, parens: 0 });
      i++;
      continue;
    }
    if (ctx.quote === '"') {
      if (c === '"') ctx.quote = null;
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      const quoted = quotedTokenAt(text, i, c);
      if (quoted) {
        found.push(quoted);
        i = quoted.end;
      } else {
        ctx.quote = c;
        i++;
      }
      continue;
    }
    if (ctx.kind === 'paren' && (c === '(' || c === ')')) {
      if (c === '(') ctx.parens++;
      else if (ctx.parens > 0) ctx.parens--;
      else stack.pop();
      i++;
      continue;
    }
    if (urlStartsAt(text, i) && (i === 0 || !BAD_PRECEDING.test(text[i - 1]!))) {
      let end = i;
      while (end < text.length && !BARE_END.test(text[end]!)) end++;
      const raw = text.slice(i, end);
      if (raw.includes('$')) throw new ToolError(urlWithExpansionMessage(raw));
      const norm = normalizeUrl(raw);
      if (norm) found.push({ start: i, end, ...norm });
      i = end;
      continue;
    }
    i++;
  }
  return found;
}

/** A whole quoted token `'scheme://…'` / `"scheme://…"` starting at the quote at `i`. */
function quotedTokenAt(text: string, i: number, quote: "'" | '"'): UrlMatch | undefined {
  if (!urlStartsAt(text, i + 1)) return undefined;
  let close = i + 1;
  while (close < text.length && text[close] !== quote) {
    if (quote === '"' && text[close] === '\\') close++;
    close++;
  }
  if (close >= text.length) return undefined; // unterminated: leave it to the shell's error
  const raw = text.slice(i + 1, close);
  if (quote === '"' && /[$`\\]/.test(raw)) throw new ToolError(urlWithExpansionMessage(raw));
  const norm = normalizeUrl(raw);
  return norm ? { start: i, end: close + 1, ...norm } : undefined;
}

/** One single-quoted shell word: `'` inside becomes `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}

function resolveOne(match: UrlMatch, opts: ExpandOptions): string {
  let resolved: string | undefined;
  try {
    resolved = opts.resolver.resolve(match.scheme, match.url);
  } catch (err) {
    throw new ToolError(urlResolverFailedMessage(match.url, err instanceof Error ? err.message : String(err)));
  }
  if (!resolved) throw new ToolError(unresolvedUrlMessage(match.url));
  if (match.scheme === 'local' && opts.ensureLocalParentDirs) {
    mkdirSync(path.dirname(resolved), { recursive: true });
  }
  return resolved;
}

/** Replaces every internal URL in `text`. Throws ToolError naming the first one it cannot resolve. */
export function expandInternalUrls(text: string, opts: ExpandOptions): string {
  if (!text.includes(':/')) return text;
  const matches = findInternalUrls(text);
  // Resolve everything first (in order, so the first bad URL is the one reported), then splice
  // from last to first so earlier offsets stay valid.
  const paths = matches.map((m) => resolveOne(m, opts));
  let out = text;
  for (let k = matches.length - 1; k >= 0; k--) {
    const m = matches[k]!;
    const p = paths[k]!;
    out = out.slice(0, m.start) + (opts.escape ? shellQuote(p) : p) + out.slice(m.end);
  }
  return out;
}

/** Env values are data, not shell text: paths go in raw; `local://` parents are created. */
export function expandEnvUrls(env: Record<string, string>, resolver: UrlResolver): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    out[key] = expandInternalUrls(value, { resolver, escape: false, ensureLocalParentDirs: true });
  }
  return out;
}

/** A cwd is expanded only when it looks like a URL; the path goes in raw. */
export function expandCwdUrl(cwd: string, resolver: UrlResolver): string {
  if (!cwd.includes('://') && !cwd.includes('local:/')) return cwd;
  return expandInternalUrls(cwd, { resolver, escape: false });
}

/**
 * `local://rest` → `<root>/rest`. Percent-escapes are decoded; anything that would leave the root
 * (`local://../x`) is unresolvable rather than silently clamped.
 */
export function resolveLocalUrl(root: string, url: string): string | undefined {
  let rest = url.replace(/^local:\/\//, '').replace(/^\/+/, '');
  try {
    rest = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  const abs = path.resolve(root, rest);
  const rel = path.relative(root, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return abs;
}

/** The host's resolver for every scheme except `local`, which lives under `localRoot`. */
export function withLocalScheme(base: UrlResolver | undefined, localRoot: string): UrlResolver {
  return {
    resolve(scheme: string, url: string): string | undefined {
      if (scheme === 'local') return resolveLocalUrl(localRoot, url);
      return base?.resolve(scheme, url);
    },
  };
}

/**
 * `artifact://<id>` resolved through the artifact store (the full output a truncation footer points
 * at), everything else through `base`.
 */
export function withArtifactScheme(base: UrlResolver | undefined, pathOf: (id: string) => string | undefined): UrlResolver {
  return {
    resolve(scheme: string, url: string): string | undefined {
      if (scheme === 'artifact') {
        const id = url.slice('artifact://'.length).replace(/\/+$/, '');
        return pathOf(id) ?? base?.resolve(scheme, url);
      }
      return base?.resolve(scheme, url);
    },
  };
}
