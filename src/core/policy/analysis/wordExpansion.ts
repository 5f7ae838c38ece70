// Expansion of static words the way bash itself does it: tilde forms, brace lists and sequences,
// pathname expansion with every bracket form, quote removal. The policy never models these; it asks
// a `WordExpander` (exec/bashExpander.ts runs a helper bash) for the words whose source text holds
// expansion syntax, and judges the fields bash answers. A word goes to the expander only when its
// source passes `lexicalProblem` (nothing in it can run code or read shell state); any other word
// with expansion syntax, and any word when no expander is available, makes the command ask.

/** What bash made of one word: its fields, or why it could not be expanded (bash's error). */
export type WordExpansion = { fields: string[] } | { error: string };

export interface WordExpander {
  /**
   * Expands each word's source text as an argument word of a simple command in `cwd`, synchronously.
   * Returns one answer per word, or a failure (the helper died, hung or could not start) for all.
   */
  expand(words: readonly string[], cwd: string): WordExpansion[] | { failure: string };
  dispose?(): void;
}

/** Reasons given when a word is not expanded. Tests assert these texts. */
export const EXPANSION = {
  noExpander: 'no bash is available to expand it',
  lexical: (what: string) => `it holds ${what}, which the expander does not evaluate`,
  mixedCaseSequence: (seq: string) => `the sequence \`${seq}\` runs through punctuation and a backtick, which bash would scan for commands`,
  dirStack: '`~-` and `~N` name the shell\'s previous or stacked directories, which depend on its state',
  failed: (why: string) => `bash could not expand it (${why})`,
  helper: (why: string) => `the expansion helper ${why}`,
  tooMany: (n: number) => `it expands to more than ${n} words`,
  tooManyDirs: (n: number) => `the line changes directory to more than ${n} places before it`,
  tooManyWords: (n: number) => `the command has more than ${n} words to expand`,
  ambiguous: (n: number) => `as a redirect target it expands to ${n} words`,
  nameFields: (n: number) => `as a command name it expands to ${n} words`,
  optionLike: (field: string) => `it expands to \`${field}\`, which the program would read as an option`,
} as const;

/** More fields than this for one word: the command asks (a glob over a huge tree, `{1..100000}`). */
export const MAX_FIELDS = 4096;

/**
 * True when the word's source holds syntax bash may expand: an unquoted, unescaped `*`, `?`, `[` or
 * `{`, or a `~` that starts the word or follows `=` or `:`. A word without any needs no expander: its text is final (the fast path).
 */
export function needsExpansion(raw: string): boolean {
  return hasUnquoted(raw, '~*?[{');
}

/** True when the word may expand to file names (unquoted `*`, `?` or `[`): its answer depends on the filesystem. */
export function globs(raw: string): boolean {
  return hasUnquoted(raw, '*?[');
}

function hasUnquoted(raw: string, chars: string): boolean {
  let quote = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quote === "'") {
      if (c === "'") quote = '';
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = '';
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (chars.includes(c)) {
      // A tilde is expanded only at the start of a word or after `=`/`:` (`a=~/x`): `HEAD~1` is text.
      if (c !== '~' || i === 0 || raw[i - 1] === '=' || raw[i - 1] === ':') return true;
    }
  }
  return false;
}

/** Unquoted characters that end a word or start a construct in bash. */
const UNQUOTED_BAD = /[\s;&|<>()`$]/u;
/** Letters, digits and marks of any script (é, ü): literal in any position. */
const LETTER = /[\p{L}\p{N}\p{M}]/u;
/** ASCII punctuation that is literal or expansion syntax (glob, brace, tilde) outside quotes. */
const UNQUOTED_OK = new Set('_-./,:=+%@^~*?[]{}!');

function describe(c: string): string {
  if (c === '$') return '`$` (an expansion)';
  if (c === '`') return 'a backtick (command substitution)';
  if (c === '\n') return 'a newline';
  if (/\s/u.test(c)) return 'white space';
  return `\`${c}\``;
}

/**
 * Why the source text of a word may not be handed to the expander, or undefined when it may. Only
 * literal characters, quotes, backslashes and glob/brace/tilde syntax pass: no `$`, no backtick, no
 * unquoted metacharacter, white space or newline, balanced quotes, and not `~-`/`~N`.
 */
export function lexicalProblem(raw: string): string | undefined {
  if (raw === '') return EXPANSION.lexical('nothing');
  if (raw.startsWith('#')) return EXPANSION.lexical('a leading `#`');
  if (/(?:^|[=:])~[+-]?[0-9]|(?:^|[=:])~-(?:$|[/:])/.test(raw)) return EXPANSION.dirStack;
  // `{Z..a}` runs through `[ \ ] ^ _` and a backtick, and bash scans the words it makes for
  // command substitution: a letter sequence across cases is not handed to bash.
  for (const m of raw.matchAll(/\{([A-Za-z])\.\.([A-Za-z])(?:\.\.[+-]?\d+)?\}/g)) {
    if ((m[1] < 'a') !== (m[2] < 'a')) return EXPANSION.mixedCaseSequence(m[0]);
  }
  let quote = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\0') return EXPANSION.lexical('a NUL character');
    if (quote === "'") {
      if (c === "'") quote = '';
      continue;
    }
    if (c === '$' || c === '`') return EXPANSION.lexical(describe(c));
    if (c === '\\') {
      if (i + 1 >= raw.length) return EXPANSION.lexical('a trailing backslash');
      const next = raw[i + 1];
      if (next === '\n') return EXPANSION.lexical('a line continuation');
      i++;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = '';
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    if (UNQUOTED_BAD.test(c)) return EXPANSION.lexical(describe(c));
    if (c.charCodeAt(0) < 0x80 ? !/[A-Za-z0-9]/.test(c) && !UNQUOTED_OK.has(c) : !LETTER.test(c)) {
      // Surrogate pairs: judge the whole code point.
      const cp = raw.codePointAt(i) ?? 0;
      const ch = String.fromCodePoint(cp);
      if (cp < 0x80 || !LETTER.test(ch)) return EXPANSION.lexical(`\`${ch}\``);
      if (cp > 0xffff) i++;
    }
  }
  if (quote !== '') return EXPANSION.lexical('an unbalanced quote');
  return undefined;
}

/** The fallback when no bash can be run: every word with expansion syntax asks. */
export const NO_EXPANDER: WordExpander = {
  expand: () => ({ failure: EXPANSION.noExpander }),
};
