// The pagers without a spec (`more`, `most`): `+` commands at start and log files.
import type { Word } from '../analysis/shellWord';
import { beforeDashDash, longName, RISKY_OPTION } from './optionWords';

const PAGER_WRITERS = /^--(?:log-file|LOG-FILE)$/;

/** Why `more`'s or `most`'s options make it run commands or write a file, or undefined. */
export function pagerOptionReason(name: string, args: readonly Word[]): string | undefined {
  for (const w of beforeDashDash(args)) {
    const t = w.text;
    if (t.startsWith('+')) return RISKY_OPTION.script(name, 'runs `+` commands at start (they may run programs)');
    if (PAGER_WRITERS.test(longName(t)) || t.startsWith('-o') || t.startsWith('-O')) return RISKY_OPTION.writes(name, longName(t));
  }
  return undefined;
}
