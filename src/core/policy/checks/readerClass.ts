// Which auto-approved lines run read-only (docs/SANDBOX.md, "Read-only by construction"). A line the
// policy let run by a rule, without asking anyone, runs under the read-only fence when every program
// in it is a reader: a program of the built-in read-only list in a form that list allows (the list's
// own layer decided it), or a program that only reads by nature, whichever rule allowed it (`awk *`
// and `jq *` in the user's settings). Runners a rule allows (`npm test`, `make test`, `pytest`),
// programs this file does not know, and every line a person or the sandbox approved keep the
// writable sandbox. The fence, not this list, is what makes a misread line harmless: a writer that
// this file took for a reader is refused its write by the kernel, never given one.
import { BUILTIN_READ_ONLY_PROGRAMS } from '../rules/builtinRules';
import type { PolicyDecision } from '../policyContracts';

/** Programs that read whatever rule allowed them: their writes and runs are the fence's to refuse. */
export const READER_PROGRAMS: ReadonlySet<string> = new Set<string>([
  ...BUILTIN_READ_ONLY_PROGRAMS,
  'awk', 'gawk', 'mawk', 'nawk', 'zcat', 'zgrep', 'bzcat', 'xzcat', 'nl', 'tac', 'rev', 'od', 'xxd', 'hexdump', 'strings',
  'column', 'comm', 'join', 'paste', 'fold', 'fmt', 'expand', 'unexpand', 'base64', 'md5sum', 'sha1sum', 'sha256sum',
  'sha512sum', 'b2sum', 'cksum', 'seq', 'printenv', 'id', 'whoami', 'uname', 'hostname', 'nproc', 'test', '[', ':',
]);

/** What a read-only run needs to know of its line: the programs it may start (names, resolved on PATH where it runs). */
export interface ReadOnlyLine {
  programs: string[];
}

/**
 * The read-only plan of a decision, or undefined when the line keeps the writable sandbox: it was
 * not allowed by a rule alone, or one of its programs is not a reader.
 */
export function readOnlyLine(decision: PolicyDecision): ReadOnlyLine | undefined {
  if (decision.decision !== 'allow' || decision.kind !== 'rule' || decision.segments.length === 0) return undefined;
  const programs = new Set<string>();
  for (const s of decision.segments) {
    if (s.decision !== 'allow' || s.segment.argv.length === 0) return undefined;
    // A rule that lets its commands redirect into files grants writing: the person asked for it.
    if (s.rule?.allowRedirects === true) return undefined;
    const name = s.segment.argv[0];
    if (s.layer !== 'builtin' && !READER_PROGRAMS.has(name)) return undefined;
    programs.add(name);
  }
  return { programs: [...programs].sort() };
}
