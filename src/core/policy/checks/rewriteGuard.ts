// The pipeline rewrites a command after it was written (internal URLs become quoted paths). The
// policy decides on the text as written, so a rewrite must never change which commands run:
// `ls # local://x%0Arm%20-f%20x` is `ls` plus a comment, but decoding `%0A` would put `rm` on a
// line of its own. This guard compares the analyses before and after the rewrite and, when the
// commands differ, takes the stricter of the two decisions, at least prompt.
import type { PolicyDecision, ShellAnalysis } from '../policyContracts';

export const REWRITE_REASON = (why: string) => `expanding internal URLs changes the command (${why}); it needs a person`;

const SEVERITY = { allow: 0, prompt: 1, deny: 2 } as const;

/** Why the rewritten analysis runs something else than the original, or undefined when it does not. */
export function rewriteChange(before: ShellAnalysis, after: ShellAnalysis): string | undefined {
  if (after.uncertain && !before.uncertain) return after.uncertainReason ?? 'the result cannot be analysed';
  if (after.construct !== undefined && before.construct === undefined) return after.construct;
  if (after.segments.length !== before.segments.length) return `${before.segments.length} commands become ${after.segments.length}`;
  for (let k = 0; k < before.segments.length; k++) {
    const a = before.segments[k];
    const b = after.segments[k];
    if (a.argv[0] !== b.argv[0] || a.opaque !== b.opaque || a.argv.length !== b.argv.length) {
      return `\`${a.argv[0] ?? ''}\` becomes \`${b.argv[0] ?? ''}\``;
    }
  }
  return undefined;
}

/**
 * The decision for a command whose text is rewritten before it runs: `decision` (on the original)
 * when the rewrite keeps the same commands, else the stricter of both, never below prompt.
 */
export function guardRewrite(before: ShellAnalysis, after: ShellAnalysis | undefined, decision: PolicyDecision, decideAfter: (a: ShellAnalysis) => PolicyDecision): PolicyDecision {
  if (!after || after.command === before.command) return decision;
  const why = rewriteChange(before, after);
  if (why === undefined) return decision;
  const second = decideAfter(after);
  if (SEVERITY[second.decision] > SEVERITY[decision.decision]) return second;
  if (decision.decision !== 'allow') return decision;
  return { ...decision, decision: 'prompt', kind: 'uncertain', rule: null, reason: REWRITE_REASON(why) };
}
