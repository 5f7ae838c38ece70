// The command line the policy judges for a `terminal/create`. Agents send two shapes: oh-my-pi wraps the
// line itself (`/bin/bash -l -c <line>`), claude-code-acp sends the raw line as `command` with no args.
// For a shell wrapper the payload after `-c` is what runs, so that is what the rules must see; a plain
// argv is quoted back into a line.
import path from 'node:path';
import { SHELLS } from '../programs/runners';

/** `-c`, or a cluster of short options that contains `c` (`-lc`, `-ec`). */
const COMMAND_FLAG = /^-[A-Za-z]*c[A-Za-z]*$/;

export interface TerminalCommand {
  command: string;
  args?: string[] | null;
}

export function policyCommandLine(params: TerminalCommand): string {
  const args = params.args ?? [];
  if (args.length === 0) return params.command;
  if (SHELLS.has(path.basename(params.command))) {
    const flag = args.findIndex((a) => COMMAND_FLAG.test(a));
    if (flag >= 0 && flag + 1 < args.length && args.slice(0, flag).every((a) => a.startsWith('-'))) {
      return args[flag + 1] as string;
    }
  }
  return [params.command, ...args].map(shellQuote).join(' ');
}

function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
