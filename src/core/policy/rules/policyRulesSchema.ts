// The shape of a rule list (`agentBash.patterns`, `explain --rules FILE`): oh-my-pi's
// `bash.patterns` entries plus the optional `allowRedirects` and `exact`. Unknown keys are errors so a typo
// such as `allowRedirect` is reported instead of silently ignored.
import { z } from 'zod';
import type { PolicyRule } from '../policyContracts';
import { ruleTooComplex } from './ruleGlob';
import { parseExactWords } from './exactRule';

export const RULE_MESSAGES = {
  notArray: 'expected a JSON array of rules',
  notObject: 'a rule must be an object',
  unknownKeys: (keys: readonly string[]) => `unknown key ${keys.map((k) => JSON.stringify(k)).join(', ')}`,
  match: 'match must be a string',
  matchEmpty: 'match must not be empty',
  approval: 'approval must be "allow", "prompt" or "deny"',
  allowRedirects: 'allowRedirects must be true or false',
  exact: 'exact must be true or false',
} as const;

export const policyRuleSchema = z.strictObject(
  {
    match: z
      .string({ error: RULE_MESSAGES.match })
      .trim()
      .min(1, { error: RULE_MESSAGES.matchEmpty })
      .superRefine((m, ctx) => {
        // Size limits keep every decision fast (ruleGlob.ts RULE_LIMITS).
        const why = ruleTooComplex(m);
        if (why !== undefined) ctx.addIssue({ code: 'custom', message: why });
      }),
    approval: z.enum(['allow', 'prompt', 'deny'], { error: RULE_MESSAGES.approval }),
    allowRedirects: z.boolean({ error: RULE_MESSAGES.allowRedirects }).optional(),
    exact: z.boolean({ error: RULE_MESSAGES.exact }).optional(),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? RULE_MESSAGES.unknownKeys(iss.keys) : RULE_MESSAGES.notObject) },
).superRefine((r, ctx) => {
  // An exact match is words, not a glob (exactRule.ts): it must parse as such.
  if (r.exact !== true) return;
  const parsed = parseExactWords(r.match);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', path: ['match'], message: parsed.message });
});

export const policyRulesSchema = z.array(policyRuleSchema, { error: RULE_MESSAGES.notArray });

/** `[2].approval: approval must be …`: the first problem, located. */
function formatIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  return where ? `${where.replace(/^\./, '')}: ${issue.message}` : issue.message;
}

export type RulesParse = { ok: true; rules: PolicyRule[] } | { ok: false; message: string };

export function parsePolicyRules(value: unknown): RulesParse {
  const result = policyRulesSchema.safeParse(value);
  if (result.success) {
    const rules = result.data.map((r): PolicyRule => {
      const rule: PolicyRule = { match: r.match, approval: r.approval };
      if (r.allowRedirects !== undefined) rule.allowRedirects = r.allowRedirects;
      if (r.exact === true) rule.exact = true;
      return rule;
    });
    return { ok: true, rules };
  }
  return { ok: false, message: formatIssue(result.error.issues[0]) };
}
