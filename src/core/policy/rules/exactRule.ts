// Exact rules (`{"match": "touch 'a b'", "approval": "allow", "exact": true}`): the match is one
// command's words as the shell reads them, with no wildcards, and the rule matches a command whose
// words are exactly those, in that order — not one word more or less, not the same text split
// differently (`rm 'a b'` is not `rm a b`). Both sides are compared in one canonical spelling: each
// word bare when it holds only safe characters, else single-quoted (exactCommandText).
//
// A command is compared word by word only when every word is static text: a word with an
// expansion (`$f`, `$(…)`) or with tilde/brace/glob syntax has no exact spelling here, so exact rules
// never match it (it asks as before). Exact rules are matched on a command's own words only, never
// on the whole line's text.

/** Problems with an exact rule's match; the rules schema reports these. Tests assert them. */
export const EXACT_MESSAGES = {
  unterminated: (quote: string) => `an exact match has an unterminated ${quote} quote`,
  special: (ch: string, at: number) =>
    `an exact match is one command's words without wildcards or shell syntax: quote \`${ch}\` (at character ${at + 1}) or drop "exact"`,
  empty: 'an exact match must name a command',
} as const;

const SAFE_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** One word as the canonical spelling writes it: bare when safe, else single-quoted. */
export function quoteWord(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The canonical spelling of a command's words (what an exact rule is compared with). */
export function exactCommandText(words: readonly string[]): string {
  return words.map(quoteWord).join(' ');
}

/** Characters that mean something to the shell or a glob when unquoted: an exact match must quote them. */
const UNQUOTED_SPECIAL = new Set([...'$`;&|<>()*?[]{}!#']);

export type ExactWords = { ok: true; words: string[] } | { ok: false; message: string };

/**
 * The words of an exact match: whitespace separates them, '…' is literal, "…" is literal but for
 * `\` before `$`, `` ` ``, `"`, `\`, and `\x` outside quotes is x. A leading `~` and the characters
 * in UNQUOTED_SPECIAL must be quoted.
 */
export function parseExactWords(match: string): ExactWords {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < match.length; i++) {
    const c = match[i];
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    if (c === "'") {
      const close = match.indexOf("'", i + 1);
      if (close < 0) return { ok: false, message: EXACT_MESSAGES.unterminated('single') };
      word = (word ?? '') + match.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      let text = '';
      let j = i + 1;
      for (; j < match.length && match[j] !== '"'; j++) {
        if (match[j] === '\\' && j + 1 < match.length && '$`"\\'.includes(match[j + 1])) j++;
        else if (match[j] === '$' || match[j] === '`') return { ok: false, message: EXACT_MESSAGES.special(match[j], j) };
        text += match[j];
      }
      if (j >= match.length) return { ok: false, message: EXACT_MESSAGES.unterminated('double') };
      word = (word ?? '') + text;
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= match.length) return { ok: false, message: EXACT_MESSAGES.special('\\', i) };
      word = (word ?? '') + match[++i];
    } else if (UNQUOTED_SPECIAL.has(c) || (c === '~' && word === undefined)) {
      return { ok: false, message: EXACT_MESSAGES.special(c, i) };
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  if (words.length === 0) return { ok: false, message: EXACT_MESSAGES.empty };
  return { ok: true, words };
}

/** The canonical text of an exact match, or undefined when it is not a valid one. */
export function exactRuleText(match: string): string | undefined {
  const parsed = parseExactWords(match);
  return parsed.ok ? exactCommandText(parsed.words) : undefined;
}

/** The command an exact match names, as the policy's plain segment text (words joined by spaces). */
export function exactPlainText(match: string): string | undefined {
  const parsed = parseExactWords(match);
  return parsed.ok ? parsed.words.join(' ').replace(/\s+/g, ' ').trim() : undefined;
}

/** The canonical text of a segment's words, or undefined when one of them is not static text. */
export function segmentExactText(seg: { argv: readonly string[]; dynamic: boolean; dynamicArgs?: readonly number[]; argvRaw?: ReadonlyArray<string | null> }, prefix: readonly string[] = []): string | undefined {
  if (seg.dynamic || seg.dynamicArgs?.length || seg.argv.length === 0) return undefined;
  if (seg.argvRaw?.some((r) => r !== null)) return undefined;
  // Wrapper words are kept as written: one with quoting or expansion syntax has no exact spelling.
  if (prefix.some((w) => /[$`"'\\*?[\]{}~]/.test(w))) return undefined;
  return exactCommandText([...prefix, ...seg.argv]);
}
