// Every one-line reason the policy gives. Tests assert these texts; change them here only.
import type { Verdict } from './policyContracts';

const MAX_SHOWN = 120;

/** One line, bounded: reasons end up in prompts, logs and tool results. */
export function shown(text: string): string {
  const line = text.slice(0, MAX_SHOWN * 4).replace(/\s+/g, ' ').trim();
  return line.length > MAX_SHOWN ? `${line.slice(0, MAX_SHOWN - 1)}…` : line;
}

export const REASON = {
  segmentRule: (text: string, index: number, approval: Verdict, match: string) =>
    `\`${shown(text)}\` in segment ${index} matched ${approval} rule \`${match}\``,
  commandRule: (command: string, approval: Verdict, match: string) =>
    `\`${shown(command)}\` matched ${approval} rule \`${match}\``,
  allowEvery: (matches: readonly string[]) =>
    `every segment matched an allow rule: ${matches.map((m) => `\`${m}\``).join(', ')}`,
  critical: (text: string, name: string) => `\`${shown(text)}\` matches a critical pattern (${name})`,
  construct: (what: string) => `the command uses a construct the policy does not auto-approve: ${what}`,
  uncertain: (why: string) => `the command could not be analysed with certainty: ${why}`,
  opaque: (text: string, index: number, why: string) => `\`${shown(text)}\` in segment ${index} is opaque: ${why}`,
  outside: (text: string, index: number, word: string, resolved: string) =>
    `\`${shown(text)}\` in segment ${index} touches \`${word}\` (${resolved}), outside the workspace`,
  unresolved: (text: string, index: number, word: string) =>
    `\`${shown(text)}\` in segment ${index} uses a path that cannot be resolved statically (\`${word}\`)`,
  redirect: (text: string, index: number, target: string, match: string) =>
    `\`${shown(text)}\` in segment ${index} writes to \`${target}\`; allow rule \`${match}\` does not set allowRedirects`,
  linkOutside: (text: string, index: number, link: string, resolved: string) =>
    `\`${shown(text)}\` in segment ${index} follows symbolic links, and \`${link}\` leads to ${resolved}, outside the workspace`,
  linksUnchecked: (text: string, index: number, root: string) =>
    `\`${shown(text)}\` in segment ${index} follows symbolic links, and ${root} holds too many files to check that none leads outside the workspace`,
  noRule: (text: string, index: number) => `\`${shown(text)}\` in segment ${index} matched no rule`,
} as const;
