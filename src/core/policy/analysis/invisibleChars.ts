// Characters a person cannot see, or sees as a space while bash reads a letter: non-ASCII white
// space (NBSP, U+2000–U+200A, U+202F, U+3000, …), zero-width and other default-ignorable characters,
// bidi controls, other format and control characters, private-use, surrogate and unassigned code
// points. Anywhere in a command line they make it ask: what is shown is not what runs. Tab and
// newline are ordinary shell syntax.
const INVISIBLE = /(?![\t\n ])[\p{White_Space}\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]/u;

export const INVISIBLE_REASON = (codePoint: string, offset: number): string =>
  `the command holds an invisible, control or non-ASCII space character ${codePoint} at offset ${offset}`;

/** `U+00A0` and its UTF-16 offset for the first such character, or undefined. */
export function findInvisible(command: string): { codePoint: string; offset: number } | undefined {
  const m = INVISIBLE.exec(command);
  if (!m) return undefined;
  const cp = m[0].codePointAt(0) ?? 0;
  return { codePoint: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`, offset: m.index };
}
