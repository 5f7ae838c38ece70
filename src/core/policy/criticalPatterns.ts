// Commands that always need a person (oh-my-pi's critical list; docs/ARCHITECTURE.md, Policy): matched
// against the raw command and against every normalised segment (so `\rm -rf /` and `sudo /bin/rm -rf /`
// are seen too). A hit floors the decision at prompt; an allow rule cannot approve it, a deny rule still
// denies.

export interface CriticalPattern {
  /** Short name used in the decision reason. */
  name: string;
  re: RegExp;
}

/** A command boundary: start, or a separator / opening bracket / backtick before optional spaces. */
const AT_COMMAND = String.raw`(?:^|[;&|(\x60{!]\s*|\n\s*)(?:sudo\s+|doas\s+)?`;

export const CRITICAL_PATTERNS: readonly CriticalPattern[] = [
  {
    name: 'recursive or forced rm of an absolute or home path',
    re: /\brm\s+(?:-\S+\s+)*-[a-zA-Z]*[rRfF][a-zA-Z]*\s+(?:-\S+\s+)*(?:--\s+)?["']?(?:\/|~)/i,
  },
  { name: 'sudo rm', re: /\bsudo\s+(?:-\S+\s+)*(?:\S*\/)?rm\b/i },
  { name: 'recursive chmod of an absolute path', re: /\bchmod\s+(?:-\S+\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+(?:[0-7]{3,4}|[ugoa]*[+\-=][rwxXst]+)\s+["']?\//i },
  { name: 'recursive chmod of an absolute path', re: /\bchmod\s+-R\s+[ugoa]*[+\-=][rwxXst]+\s+\// },
  { name: 'recursive chown of an absolute path', re: /\bchown\s+(?:-\S+\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+["']?\//i },
  { name: 'fork bomb', re: /:\s*\(\s*\)\s*\{\s*:\s*\|\s*:/ },
  { name: 'write to a raw disk', re: />\s*\/dev\/(?:sd[a-z]|hd[a-z]|nvme\d|mmcblk\d|disk\d|xvd[a-z]|vd[a-z])/i },
  { name: 'mkfs', re: /\bmkfs(?:\.\w+)?\b/i },
  { name: 'dd to a device', re: /\bdd\b[^\n;&|]*\bof=\/dev\//i },
  { name: 'shred of a device', re: /\bshred\b[^\n;&|]*\/dev\//i },
  { name: 'cryptsetup', re: /\bcryptsetup\b/i },
  { name: 'write to an account database', re: /(?:>|\btee\s+(?:-a\s+)?)\s*["']?\/etc\/(?:passwd|shadow|sudoers|group|gshadow)\b/i },
  { name: 'download piped to a shell', re: /\b(?:curl|wget|fetch)\b[^\n;&]*\|\s*(?:sudo\s+)?(?:\S*\/)?(?:bash|sh|zsh|fish|dash|ksh)\b/i },
  { name: 'shell reading a download', re: new RegExp(String.raw`${AT_COMMAND}(?:bash|sh|zsh|source|\.)\s+<\(\s*(?:curl|wget|fetch)\b`, 'i') },
  { name: 'eval of a download', re: /\beval\s+["']?(?:\$\(|`)\s*(?:curl|wget|fetch)\b/i },
  { name: 'kill of init', re: /\bkill\s+-(?:9|KILL|SIGKILL)\s+-?1(?![\w])/ },
  { name: 'shutdown or reboot', re: new RegExp(String.raw`${AT_COMMAND}(?:\S*\/)?(?:shutdown|poweroff|reboot|halt)(?=\s|$|[;&|)])`, 'i') },
  { name: 'init 0', re: new RegExp(String.raw`${AT_COMMAND}(?:\S*\/)?(?:init|telinit)\s+[06](?![\w])`, 'i') },
  { name: 'netcat running a program', re: /\b(?:nc|ncat|netcat)\b[^\n;&|]*\s-[a-zA-Z]*[ec](?:\s|$)/ },
];

/** The first critical pattern found in any of the texts, or undefined. */
export function findCritical(texts: readonly string[]): { pattern: CriticalPattern; text: string } | undefined {
  for (const text of texts) {
    if (!text) continue;
    for (const pattern of CRITICAL_PATTERNS) if (pattern.re.test(text)) return { pattern, text };
  }
  return undefined;
}
