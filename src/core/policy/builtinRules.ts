// The built-in read-only list (`agentBash.builtinRules`, on by default; the CLI's
// `--no-builtin-rules`): programs that only read, allowed without asking. Each rule is a plain
// allow glob; what keeps it read-only is the policy's floors, above all the per-program option specs
// (an option or sed command a spec does not list asks) and the workspace boundary for paths.
import type { PolicyRule } from './policyContracts';

export const BUILTIN_LAYER_SOURCE = 'built-in read-only list';

const READ_ONLY_PROGRAMS = ['ls', 'pwd', 'cat', 'head', 'tail', 'wc'] as const;

export const BUILTIN_RULES: readonly PolicyRule[] = Object.freeze(
  READ_ONLY_PROGRAMS.map((name) => Object.freeze({ match: `${name} *`, approval: 'allow' as const })),
);
