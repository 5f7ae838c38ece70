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
