// A byte-level scan of the command text for what tree-sitter-bash reads differently from bash, or
// for constructs whose bash meaning depends on run-time values. It runs before (and independently
// of) the parse, so a parser misreading cannot hide these. A hit never denies: it only keeps the
// command from being allowed without a person (the policy floors it at prompt, naming the construct).
//
// The scan is deliberately quote-blind: `echo 'a\ b'` is flagged too. Over-asking on rare text is
// the price of not needing a second shell parser that could itself be wrong.

import { isSecretLookingName } from './sensitiveVariables';

/** Names of the constructs the scan reports. Tests assert these texts. */
export const RAW_CONSTRUCT = {
  control: (code: number) => `control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`,
  backslashBlank: 'backslash before a space, tab or `#` (bash and tree-sitter split the words differently)',
  escapedBacktick: 'escaped backtick (nested command substitution)',
  dollarBracket: 'arithmetic `$[ ]`',
  arithmeticNames: 'arithmetic `$(( ))` that reads variables (array subscripts run code)',
  braceExpansionParam: 'parameter expansion other than a plain `${NAME}`',
  secret: (name: string) => `expands \`$${name}\`, a name that looks like it holds a secret (without the sandbox a command sees the parent's value)`,
  heredocDelimiter: (word: string) => `here-document delimiter \`${word}\` is neither a plain nor a fully quoted word`,
} as const;

const PLAIN_DELIMITER = /^(?:[A-Za-z0-9_]+|'[A-Za-z0-9_]+'|"[A-Za-z0-9_]+")$/;
/** `${NAME}`, `${1}`, `${@}`, …: the only braced expansions whose meaning never depends on a value. */
const PLAIN_BRACED = /\$\{(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])\}/y;
/** `$(( 1 + 2 ))`: numbers and operators only; any name may be an array subscript that runs code. */
const NUMERIC_ARITHMETIC = /\$\(\([\s0-9+\-*/%()<>=!&|^~]*\)\)/y;

/** `$NAME`, `${NAME…}`, `${#NAME}`, `${!NAME}`: the name expanded at `at`. */
const EXPANDED_NAME = /\$\{?[#!]?([A-Za-z_][A-Za-z0-9_]*)/y;

function secretNameAt(text: string, at: number): string | undefined {
  EXPANDED_NAME.lastIndex = at;
  const name = EXPANDED_NAME.exec(text)?.[1];
  return name !== undefined && isSecretLookingName(name) ? name : undefined;
}

/** Sticky test at `at`: no slicing, and the scan stops where the allowed characters do. */
function matchesAt(re: RegExp, text: string, at: number): boolean {
  re.lastIndex = at;
  return re.test(text);
}
/** Characters that end a here-document delimiter word. */
const WORD_END = /[\s;&|<>()]/;

function heredocDelimiterAt(text: string, i: number): string {
  let k = i;
  if (text[k] === '-') k++;
  while (text[k] === ' ' || text[k] === '\t') k++;
  let end = k;
  while (end < text.length && !WORD_END.test(text[end])) end++;
  return text.slice(k, end);
}

/** The first construct in `text` the policy must not auto-approve, or undefined. Linear in the text. */
export function scanRawText(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a) || c === 0x7f || c === 0x85 || c === 0x2028 || c === 0x2029) {
      return RAW_CONSTRUCT.control(c);
    }
    const ch = text[i];
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === ' ' || next === '\t' || next === '#') return RAW_CONSTRUCT.backslashBlank;
      if (next === '`') return RAW_CONSTRUCT.escapedBacktick;
      i++; // the escaped character is literal (a continuation `\<newline>` is judged by the analysis)
      continue;
    }
    if (ch === '$') {
      const secret = secretNameAt(text, i);
      if (secret !== undefined) return RAW_CONSTRUCT.secret(secret);
      const next = text[i + 1];
      if (next === '[') return RAW_CONSTRUCT.dollarBracket;
      if (next === '{' && !matchesAt(PLAIN_BRACED, text, i)) return RAW_CONSTRUCT.braceExpansionParam;
      if (next === '(' && text[i + 2] === '(' && !matchesAt(NUMERIC_ARITHMETIC, text, i)) {
        return RAW_CONSTRUCT.arithmeticNames;
      }
      continue;
    }
    if (ch === '<' && text[i + 1] === '<') {
      if (text[i + 2] === '<') {
        i += 2; // a here-string
        continue;
      }
      const word = heredocDelimiterAt(text, i + 2);
      if (!PLAIN_DELIMITER.test(word)) return RAW_CONSTRUCT.heredocDelimiter(word);
      i++;
    }
  }
  return undefined;
}
