// The shell word as the policy reads it, in a module of its own: the normaliser, the option tables and
// the program specs all speak of words, and none of them should have to import another to say so.
/** One shell word after unquoting. `text` is the static value, or the source text when dynamic. */
export interface Word {
  text: string;
  /** Contains an expansion or substitution whose value is only known at run time. */
  dynamic: boolean;
  /** Holds an expansion outside double quotes: bash splits its value into several words and globs them. */
  splits?: boolean;
  /** Contains unquoted glob or brace characters, so bash may turn it into other words. */
  expandable: boolean;
  /** The word's source text (absent for words the parser made up, like a declaration keyword). */
  raw?: string;
}
