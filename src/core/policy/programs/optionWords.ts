// What the older option tables share (git's forms without a spec, the npm family, the pagers): the
// reasons they give, and how they read a word. Such a command is opaque: an allow rule for the program
// cannot approve it, a person must.
import type { Word } from '../analysis/shellWord';

export const RISKY_OPTION = {
  writes: (name: string, option: string) => `\`${name} ${option}\` writes files`,
  runs: (name: string, option: string) => `\`${name} ${option}\` names a program to run`,
  script: (name: string, what: string) => `\`${name}\` ${what}`,
  config: (name: string, option: string) => `\`${name} ${option}\` sets configuration that can name programs or files`,
  hidden: (name: string, option: string) => `\`${name} ${option}\` reads a script the analysis cannot see`,
} as const;

/** `--name=value` or `--name` → `--name`. */
export function longName(t: string): string {
  const eq = t.indexOf('=');
  return eq < 0 ? t : t.slice(0, eq);
}

/** Words before a lone `--` (after it, options belong to someone else). */
export function beforeDashDash(args: readonly Word[]): Word[] {
  const end = args.findIndex((w) => w.text === '--');
  return end < 0 ? [...args] : args.slice(0, end);
}
