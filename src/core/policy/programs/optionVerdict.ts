// The hook the normalisation calls (shellNormalize.ts `classify`): why a program's options make the
// command ask, read by the program's spec where it has one, else by the older option table its
// module keeps (git's forms without a spec, the npm family, the pagers).
import { gitOptionReason } from './git';
import { npmFamilyOptionReason } from './npm';
import { pagerOptionReason } from './pagers';
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

/** The older option tables, by program: why this program's options make it a writer or a runner, or undefined. */
function riskyOption(name: string, args: readonly Word[]): string | undefined {
  switch (name) {
    case 'git':
      return gitOptionReason(args);
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'npx':
    case 'bun':
      return npmFamilyOptionReason(name, args);
    case 'more':
    case 'most':
      return pagerOptionReason(name, args);
    default:
      return undefined;
  }
}
