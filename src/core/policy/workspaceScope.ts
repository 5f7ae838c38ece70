// The workspace boundary for file commands and redirect targets (opencode's external_directory
// idea): path words are resolved against the command's cwd, without touching the disk, and
// anything outside every workspace root asks first. Symlinks are not followed: the check reads
// the command as written, it is a guardrail and not a sandbox.
import * as os from 'node:os';
import * as path from 'node:path';
import type { Segment } from './policyContracts';
import { namesFile } from './redirectTargets';

/** Commands whose operands are paths they read, write or enter. */
export const PATH_COMMANDS: ReadonlySet<string> = new Set([
  'cd', 'pushd', 'rm', 'rmdir', 'cp', 'mv', 'mkdir', 'touch', 'chmod', 'chown', 'chgrp', 'ln', 'cat', 'tee',
]);

/** Commands whose first operand is a mode or owner, not a path. */
const FIRST_OPERAND_NOT_PATH: ReadonlySet<string> = new Set(['chmod', 'chown', 'chgrp']);

export type PathProblem =
  | { kind: 'outside'; word: string; resolved: string }
  | { kind: 'unresolved'; word: string };

/** Resolves a path word as bash would see it; undefined when it cannot be known statically. */
export function resolvePathWord(word: string, cwd: string): string | undefined {
  if (word === '~' || word.startsWith('~/')) return path.resolve(os.homedir(), word.slice(2));
  if (word.startsWith('~')) return undefined; // ~user, ~+, ~-
  return path.resolve(cwd, word);
}

export function isInside(resolved: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const r = path.resolve(root);
    const rel = path.relative(r, resolved);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

interface PathWord {
  word: string;
  dynamic: boolean;
}

function pathOperands(seg: Segment): PathWord[] {
  const name = seg.argv[0];
  if (!PATH_COMMANDS.has(name)) return [];
  const dynamic = new Set(seg.dynamicArgs ?? []);
  const out: PathWord[] = [];
  let options = true;
  let skipFirst = FIRST_OPERAND_NOT_PATH.has(name);
  for (let i = 1; i < seg.argv.length; i++) {
    const word = seg.argv[i];
    if (options && word === '--') {
      options = false;
      continue;
    }
    if (options && word.startsWith('-') && word !== '-') {
      const eq = word.indexOf('=');
      if (word.startsWith('--reference')) skipFirst = false;
      // `--target-directory=/x`, `--reference=/x`: the value is a path.
      if (word.startsWith('--') && eq > 0) out.push({ word: word.slice(eq + 1), dynamic: dynamic.has(i) });
      continue;
    }
    if (skipFirst) {
      skipFirst = false;
      continue;
    }
    out.push({ word, dynamic: dynamic.has(i) });
  }
  if ((name === 'cd' || name === 'pushd') && out.length === 0) out.push({ word: '~', dynamic: false });
  return out;
}

/** The first path operand or redirect target of the segment that is outside the roots or unknowable. */
export function findExternalPath(seg: Segment, cwd: string, roots: readonly string[]): PathProblem | undefined {
  const words: PathWord[] = pathOperands(seg);
  for (const r of seg.redirects) {
    if (!namesFile(r)) continue;
    words.push(r.target === undefined ? { word: `${r.fd ?? ''}${r.op} …`, dynamic: true } : { word: r.target, dynamic: false });
  }
  for (const { word, dynamic } of words) {
    if (dynamic || (word === '-' && (seg.argv[0] === 'cd' || seg.argv[0] === 'pushd'))) {
      return { kind: 'unresolved', word };
    }
    const resolved = resolvePathWord(word, cwd);
    if (resolved === undefined) return { kind: 'unresolved', word };
    if (!isInside(resolved, roots)) return { kind: 'outside', word, resolved };
  }
  return undefined;
}
