// Pipeline stage 2 (docs/ARCHITECTURE.md, Pipeline): a leading `cd <path> && rest` becomes the working
// directory, so the command that runs (and the persistent shell it runs in) does not carry a `cd` the
// model meant only for this call.

export interface CdPrefix {
  /** The directory as written, with one pair of surrounding quotes removed; not yet resolved. */
  cwd: string;
  /** What runs once the cwd is set: the text after `&&` and its blanks. */
  command: string;
}

// `cd`, blanks, the shortest path, blanks, `&&`, blanks, the rest (which must exist). Single line only.
const LEADING_CD = /^cd[ \t]+([^&\n\r]+?)[ \t]*&&[ \t]*([^\n\r]+)$/;

/**
 * Characters that make the path something other than one literal word: expansions (`$`, backtick,
 * `(`) as in oh-my-pi, plus — our addition — separators, redirections, globs and backslash escapes,
 * which oh-my-pi would have turned into a nonexistent literal directory. Declining leaves the whole
 * command to the shell, which always gets it right.
 */
const NOT_A_PLAIN_PATH = /[$`()\\;|<>*?[\]{}]/;

/** Returns the rewrite, or undefined when the command must go to the shell unchanged. */
export function extractCdPrefix(command: string): CdPrefix | undefined {
  const m = LEADING_CD.exec(command);
  if (!m) return undefined;
  const rawPath = m[1]!.trim();
  const rest = m[2]!;
  if (rest.trim() === '' || NOT_A_PLAIN_PATH.test(rawPath)) return undefined;

  let path = rawPath;
  const quoted = /^['"]/.test(path) || /['"]$/.test(path);
  // One leading and one trailing quote are stripped independently (as oh-my-pi does): `"a b"` → `a b`.
  if (path.startsWith("'") || path.startsWith('"')) path = path.slice(1);
  if (path.endsWith("'") || path.endsWith('"')) path = path.slice(0, -1);
  // Quotes left inside, unquoted blanks (two words), `-` (previous dir) or nothing: not one literal path.
  if (path === '' || path === '-' || /['"]/.test(path) || (!quoted && /\s/.test(path))) return undefined;
  return { cwd: path, command: rest };
}
