// Recursive walks that follow symbolic links (`grep -R`, `rg -L`, `ls -RL`, `find -L`, `du -L`…)
// read whatever a link inside the workspace points at: `ln -s ~/.ssh keys; grep -R KEY .` reads the
// keys although every word of the command stays inside. For such a command the directories it
// walks are scanned (bounded in entries and time) for a link that leads outside the workspace; one
// found, or a scan cut short, makes the command ask. Walks that do not follow links (`grep -r`,
// `ls -R`, `find .`) follow only the links named on the command line, which the word check in
// workspaceScope.ts already resolves.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Segment } from '../policyContracts';
import { specCanonicalArgs } from '../programs/pathWords';
import { basename } from '../analysis/shellNormalize';
import { isInside, resolvePathWord } from './workspaceScope';
import { cpuNow } from '../../util/cpuClock';
import { specPathWords } from '../programs/pathWords';

/** Directory entries one scan may read, and the time it may take. */
const MAX_ENTRIES = 20_000;
const BUDGET_MS = 10;

export type LinkProblem =
  | { kind: 'link'; link: string; resolved: string }
  | { kind: 'tooMany'; root: string };

interface FollowRule {
  /** Short options (any cluster holding one of these letters) that make the walk follow links. */
  short?: string;
  long?: readonly string[];
  /** Single-dash words (find's `-follow`, `-L` before its paths). */
  words?: readonly string[];
  /** The walk recurses only with one of these short letters or long options (ls, chmod…). */
  recursive?: { short: string; long: readonly string[] };
  /**
   * The program follows links by default, unless one of these long options is given: `diff` reads
   * through every link in a directory operand (with or without `-r`) unless `--no-dereference`.
   */
  unlessLong?: readonly string[];
  /** Only directory operands are walked (no operand directory: no walk); `diff a b` on files walks nothing. */
  directoryOperandsOnly?: boolean;
}

const GREP: FollowRule = { short: 'R', long: ['--dereference-recursive'] };
const CHANGE_OWNER: FollowRule = { short: 'L', recursive: { short: 'R', long: ['--recursive'] } };

/** Programs whose recursive walk can follow links met on the way, and the options that make it. */
const FOLLOWERS: Readonly<Record<string, FollowRule>> = {
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: { short: 'L', long: ['--follow'] },
  ag: { long: ['--follow'], short: 'f' },
  ls: { short: 'L', long: ['--dereference'], recursive: { short: 'R', long: ['--recursive'] } },
  find: { words: ['-L', '-follow'] },
  du: { short: 'L', long: ['--dereference'] },
  tree: { short: 'l' },
  tar: { short: 'h', long: ['--dereference'] },
  rsync: { short: 'L', long: ['--copy-links'] },
  cp: { short: 'L', long: ['--dereference'], recursive: { short: 'rR', long: ['--recursive'] } },
  chmod: CHANGE_OWNER,
  chown: CHANGE_OWNER,
  chgrp: CHANGE_OWNER,
  zip: { short: 'r' },
  diff: { unlessLong: ['--no-dereference'], directoryOperandsOnly: true },
};

/** Whether `args` (before `--`) set one of the short letters or long options. */
function hasOption(args: readonly string[], short: string | undefined, long: readonly string[] | undefined): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a.startsWith('--')) {
      if (long?.some((l) => a === l || a.startsWith(`${l}=`))) return true;
    } else if (a.startsWith('-') && a.length > 1 && short) {
      // Any letter of the cluster counts, even one that is really an option's value (`-eR`): that
      // only makes the command ask, never lets one through.
      for (const letter of a.slice(1)) if (short.includes(letter)) return true;
    }
  }
  return false;
}

/** True when this segment's program walks directories and follows the links it meets. */
export function followsLinks(seg: Segment): boolean {
  const program = basename(seg.argv[0] ?? '');
  const rule = Object.hasOwn(FOLLOWERS, program) ? FOLLOWERS[program] : undefined;
  if (!rule) return false;
  // As written, and as the program's spec spells it (`grep --deref` is `--dereference-recursive`).
  const forms = [seg.argv.slice(1), ...specCanonicalArgs(seg)];
  if (rule.unlessLong) return !forms.some((args) => hasOption(args, undefined, rule.unlessLong));
  return forms.some((args) => {
    if (rule.recursive && !hasOption(args, rule.recursive.short, rule.recursive.long)) return false;
    if (rule.words && args.some((a) => rule.words?.includes(a))) return true;
    return hasOption(args, rule.short, rule.long);
  });
}

/**
 * The directories the walk starts from: the path operands that are directories, else the cwd. A
 * program with a spec says which words are paths (`rg -L sub` searches for `sub` in `.`); for the
 * others every non-option word that names a directory counts.
 */
function walkRoots(seg: Segment, cwd: string, directoryOperandsOnly: boolean): string[] {
  const roots: string[] = [];
  const spec = specPathWords(seg);
  const words = spec ? spec.filter((p) => !p.dynamic).map((p) => p.word) : seg.argv.slice(1);
  for (const word of words) {
    if (word.startsWith('-')) continue;
    const resolved = resolvePathWord(word, cwd);
    const st = fs.statSync(resolved, { throwIfNoEntry: false });
    if (st?.isDirectory()) roots.push(resolved);
  }
  return roots.length > 0 || directoryOperandsOnly ? roots : [cwd];
}

function realOrUndefined(p: string): string | undefined {
  // A missing path costs no exception (realpath's throw is the slow part); realpath fails there too.
  if (!fs.existsSync(p)) return undefined;
  try {
    return fs.realpathSync.native(p);
  } catch {
    return undefined; // dangling, or unreadable: nothing to follow
  }
}

/**
 * For a segment whose walk follows links: the first link under the walked directories that leads
 * outside the workspace, or `tooMany` when the scan was cut short; undefined when none leads out.
 */
export function findLinkOutside(seg: Segment, cwd: string, workspaceRoots: readonly string[]): LinkProblem | undefined {
  if (!followsLinks(seg)) return undefined;
  const realRoots = workspaceRoots.map((r) => realOrUndefined(r) ?? path.resolve(r));
  const deadline = cpuNow() + BUDGET_MS;
  const seen = new Set<string>();
  let entries = 0;
  const program = basename(seg.argv[0] ?? '');
  const operandsOnly = Object.hasOwn(FOLLOWERS, program) && FOLLOWERS[program].directoryOperandsOnly === true;
  for (const start of walkRoots(seg, cwd, operandsOnly)) {
    const real = realOrUndefined(start);
    // A root outside the workspace is the word check's business (workspaceScope.ts).
    if (real === undefined || !isInside(real, realRoots)) continue;
    const queue = [real];
    while (queue.length > 0) {
      const dir = queue.pop() as string;
      if (seen.has(dir)) continue;
      seen.add(dir);
      let list: fs.Dirent[];
      try {
        list = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue; // unreadable: the program cannot read it either
      }
      for (const entry of list) {
        if (++entries > MAX_ENTRIES || (entries % 256 === 0 && cpuNow() > deadline)) return { kind: 'tooMany', root: start };
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          queue.push(full);
        } else if (entry.isSymbolicLink()) {
          const target = realOrUndefined(full);
          if (target === undefined) continue;
          if (!isInside(target, realRoots)) return { kind: 'link', link: full, resolved: target };
          // A link to a directory inside: the walk goes there too, and so does the scan.
          if (fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) queue.push(target);
        }
      }
    }
  }
  return undefined;
}
