// The hook the normalisation calls (shellNormalize.ts `classify`): why a program's options make the
// command ask, read by the program's spec where it has one, else by the older option table.
import { riskyOption } from '../programOptions';
import type { Word } from '../shellNormalize';
import { judgeProgram } from './index';

export function programOptionReason(name: string, args: readonly Word[]): string | undefined {
  const j = judgeProgram(name, args);
  return j ? j.reason : riskyOption(name, args);
}
