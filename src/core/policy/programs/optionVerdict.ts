// The hook the normalisation calls (shellNormalize.ts `classify`): why a program's options make the
// command ask, read by the program's spec where it has one, else by the older option table.
import { riskyOption } from '../programOptions';
import type { Word } from '../shellNormalize';
import { expandBraceWord } from '../workspaceScope';
import type { ArgWord } from './getopt';
import { judgeProgram } from './index';

/** A brace sequence (`{a..z}`) left whole by the list expansion: its words are not known here. */
const SEQUENCE = /\{[^{}]*\.\.[^{}]*\}/;

/**
 * The words as the program receives them after brace expansion (`sort {-o,x} f` is `sort -o x f`).
 * A word still holding a sequence counts as dynamic: it may be an option.
 */
function programWords(args: readonly Word[]): ArgWord[] {
  const out: ArgWord[] = [];
  for (const w of args) {
    if (w.dynamic || !w.expandable || !w.text.includes('{')) {
      out.push({ text: w.text, dynamic: w.dynamic });
      continue;
    }
    for (const text of expandBraceWord(w.text)) out.push({ text, dynamic: SEQUENCE.test(text) });
  }
  return out;
}

export function programOptionReason(name: string, args: readonly Word[]): string | undefined {
  const j = judgeProgram(name, programWords(args));
  return j ? j.reason : riskyOption(name, args);
}
