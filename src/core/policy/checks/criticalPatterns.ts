// Commands that always need a person (oh-my-pi's critical list; docs/ARCHITECTURE.md, Policy), checked on the analysed
// commands (argv after wrapper stripping, redirect targets, pipeline position) rather than by
// regexes over the raw text: quoted text such as `grep -rn 'rm -rf /' .` or `git log --grep=mkfs`
// is an argument, not a command, and every check is linear in the argv.
// A hit floors the decision at prompt; an allow rule cannot approve it, a deny rule still denies.
import type { Segment } from '../policyContracts';
import { basename } from '../analysis/shellNormalize';
import { SHELLS } from '../programs/runners';

export interface CriticalHit {
  /** Short name used in the decision reason. */
  name: string;
}

const RAW_DISK = /^\/dev\/(?:sd[a-z]|hd[a-z]|nvme\d|mmcblk\d|disk\d|xvd[a-z]|vd[a-z])/i;
const ACCOUNT_DB = /^\/etc\/(?:passwd|shadow|sudoers|group|gshadow)(?:$|\.)/;
const DOWNLOADERS: ReadonlySet<string> = new Set(['curl', 'wget', 'fetch']);
const POWER: ReadonlySet<string> = new Set(['shutdown', 'poweroff', 'reboot', 'halt']);

function operands(argv: readonly string[]): string[] {
  const out: string[] = [];
  let options = true;
  for (const a of argv.slice(1)) {
    if (options && a === '--') options = false;
    else if (!options || !a.startsWith('-') || a === '-') out.push(a);
  }
  return out;
}

function shortFlags(argv: readonly string[]): string {
  return argv.slice(1).filter((a) => /^-[A-Za-z]/.test(a) && !a.startsWith('--')).map((a) => a.slice(1)).join('');
}

function longFlag(argv: readonly string[], name: string): boolean {
  return argv.slice(1).some((a) => a === `--${name}`);
}

const absOrHome = (w: string): boolean => w.startsWith('/') || w === '~' || w.startsWith('~/');

type Check = (seg: Segment, all: readonly Segment[]) => boolean;

const CHECKS: ReadonlyArray<{ name: string; test: Check }> = [
  {
    name: 'recursive or forced rm of an absolute or home path',
    test: ({ argv }) =>
      argv[0] === 'rm' && (/[rRf]/.test(shortFlags(argv)) || longFlag(argv, 'recursive') || longFlag(argv, 'force')) && operands(argv).some(absOrHome),
  },
  { name: 'sudo rm', test: (seg) => !!seg.privileged && seg.argv[0] === 'rm' },
  {
    name: 'recursive chmod or chown of an absolute path',
    test: ({ argv }) =>
      (argv[0] === 'chmod' || argv[0] === 'chown' || argv[0] === 'chgrp') &&
      (shortFlags(argv).includes('R') || longFlag(argv, 'recursive')) &&
      operands(argv).slice(1).some((w) => w.startsWith('/')),
  },
  {
    name: 'write to a raw disk',
    test: (seg) =>
      seg.redirects.some((r) => r.op.includes('>') && r.target !== undefined && RAW_DISK.test(r.target)) ||
      (seg.argv[0] === 'dd' && seg.argv.some((a) => a.startsWith('of=/dev/'))) ||
      (seg.argv[0] === 'shred' && operands(seg.argv).some((w) => w.startsWith('/dev/'))),
  },
  { name: 'mkfs', test: ({ argv }) => /^mkfs(?:\.\w+)?$/.test(argv[0] ?? '') },
  { name: 'cryptsetup', test: ({ argv }) => argv[0] === 'cryptsetup' },
  {
    name: 'write to an account database',
    test: (seg) =>
      seg.redirects.some((r) => r.op.includes('>') && r.target !== undefined && ACCOUNT_DB.test(r.target)) ||
      (seg.argv[0] === 'tee' && operands(seg.argv).some((w) => ACCOUNT_DB.test(w))),
  },
  {
    // A shell reading its program from a pipe, stdin or a process substitution, in a command that downloads.
    name: 'download run by a shell',
    test: (seg, all) =>
      SHELLS.has(seg.argv[0] ?? '') &&
      (seg.consumesPipe || (seg.dynamicArgs?.length ?? 0) > 0 || seg.argv.length === 1) &&
      all.some((s) => DOWNLOADERS.has(s.argv[0] ?? '')),
  },
  {
    name: 'eval of a download',
    test: (seg, all) => (seg.argv[0] === 'eval' || seg.argv[0] === 'source' || seg.argv[0] === '.') && all.some((s) => DOWNLOADERS.has(s.argv[0] ?? '')),
  },
  {
    name: 'kill of every process',
    test: ({ argv }) => argv[0] === 'kill' && /^-(?:9|KILL|SIGKILL)$/.test(argv[1] ?? '') && argv.slice(2).some((w) => w === '-1' || w === '1'),
  },
  { name: 'shutdown or reboot', test: ({ argv }) => POWER.has(argv[0] ?? '') },
  { name: 'init 0', test: ({ argv }) => (argv[0] === 'init' || argv[0] === 'telinit') && /^[06]$/.test(argv[1] ?? '') },
  {
    name: 'netcat running a program',
    test: ({ argv }) => /^(?:nc|ncat|netcat)$/.test(argv[0] ?? '') && argv.slice(1).some((a) => /^-[A-Za-z]*[ec]/.test(a) || a.startsWith('--exec') || a.startsWith('--sh-exec')),
  },
];

/** The first critical check the segment trips, or undefined. `all` is every segment of the command. */
export function findCritical(seg: Segment, all: readonly Segment[]): CriticalHit | undefined {
  if (seg.argv.length === 0) return undefined;
  const normalized = seg.argv[0] === basename(seg.argv[0]) ? seg : { ...seg, argv: [basename(seg.argv[0]), ...seg.argv.slice(1)] };
  for (const c of CHECKS) if (c.test(normalized, all)) return { name: c.name };
  return undefined;
}
