// What the policy's checks take from a segment's spec judgement: the path words (workspaceScope.ts),
// the written paths (protectedPaths.ts) and the canonical spellings deny/prompt rules also see
// (policy.ts: `sort --outp=f` is also matched as `sort --output=f` and `sort -o f`).
import type { Segment } from '../policyContracts';
import { judgeArgv } from './index';

export interface SpecPathWord {
  word: string;
  dynamic: boolean;
  /** Written paths are judged even when they do not exist yet. */
  certain: boolean;
}

/** The segment's path words by its program's spec, or undefined when it has none. */
export function specPathWords(seg: Segment): SpecPathWord[] | undefined {
  const j = judgeArgv(seg.argv, seg.dynamicArgs);
  if (!j) return undefined;
  return j.paths.map((p) => ({ word: p.word, dynamic: p.dynamic, certain: p.writes }));
}

export function specWrittenWords(seg: Segment): string[] {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a segment may have no argv
  if (seg.argv[0] === undefined) return [];
  return (judgeArgv(seg.argv, seg.dynamicArgs)?.paths ?? []).filter((p) => p.writes && !p.dynamic).map((p) => p.word);
}

export function canonicalForms(seg: Segment): string[] {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a segment may have no argv
  if (seg.argv[0] === undefined) return [];
  return (judgeArgv(seg.argv, seg.dynamicArgs)?.canonical ?? []).map((c) => [seg.argv[0], ...c].join(' '));
}

/** The segment's arguments (without argv0) in the spec's canonical spellings, when they differ. */
export function specCanonicalArgs(seg: Segment): string[][] {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a segment may have no argv
  if (seg.argv[0] === undefined) return [];
  return judgeArgv(seg.argv, seg.dynamicArgs)?.canonical ?? [];
}

/**
 * Why the program's words, as bash expanded them, make the command ask when the words as written
 * did not: a brace list or pattern that turned one word into several moves the operands
 * (`uniq a{,}` is `uniq a a`, whose second operand is written). Undefined when the expanded words
 * are the written ones or read the same.
 */
export function expandedWordsReason(written: Segment, expanded: Segment): string | undefined {
  if (written.argv.length === expanded.argv.length && written.argv.every((w, k) => w === expanded.argv[k])) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a segment may have no argv
  if (expanded.argv[0] === undefined) return undefined;
  const reason = judgeArgv(expanded.argv, expanded.dynamicArgs)?.reason;
  return reason === undefined ? undefined : `as bash expands its words, ${reason}`;
}
