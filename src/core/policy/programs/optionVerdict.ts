// The hook the normalisation calls (shellNormalize.ts `classify`): why a program's options make the
// command ask, read by the program's spec where it has one, else by the older option table.
import { riskyOption } from './programOptions';
import type { Word } from '../analysis/shellWord';
import type { ArgWord } from './getopt';
import { judgeProgram } from './index';

/**
 * The words as written. A word with brace or glob syntax is read as the operand it starts as; when
 * bash expands it into something that starts with `-`, the decision asks (segmentExpansion.ts), so
 * an option never hides in an expansion.
 */
function programWords(args: readonly Word[]): ArgWord[] {
  return args.map((w) => (w.splits === true ? { text: w.text, dynamic: w.dynamic, splits: true } : { text: w.text, dynamic: w.dynamic }));
}

export function programOptionReason(name: string, args: readonly Word[]): string | undefined {
  const j = judgeProgram(name, programWords(args));
  return j ? j.reason : riskyOption(name, args);
}
