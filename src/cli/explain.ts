// `agent-bash explain [--rules FILE] [--cwd DIR] [--workspace DIR] -- COMMAND`: prints the policy
// decision for COMMAND as one JSON object, for scripts, CI and anyone debugging a rule list.
// Exit 0 with a decision; exit 2 with a message on bad arguments or a bad rules file.
import * as path from 'node:path';
import type { PolicyDecision } from '../core/contracts';
import { decide } from '../core/policy/policy';
import type { PolicyRule } from '../core/contracts';
import { createShellAnalyzer } from '../core/policy/shellAnalysis';
import { CLI_MESSAGES, parseCliArgs, readRulesFile, resolveCwdOption, UsageError } from './cliArgs';

export const EXPLAIN_USAGE = 'usage: agent-bash explain [--rules FILE] [--cwd DIR] [--workspace DIR]... -- COMMAND';

/** Every message `explain` exits 2 with. Tests assert these. */
export const EXPLAIN_ERRORS = CLI_MESSAGES;

interface ExplainArgs {
  rulesFile?: string;
  cwd?: string;
  workspaces: string[];
  command: string;
}

function parseArgs(args: string[]): ExplainArgs {
  const parsed = parseCliArgs(args, { values: ['--rules', '--cwd', '--workspace'], repeatable: ['--workspace'] });
  const out: ExplainArgs = { workspaces: parsed.values.get('--workspace') ?? [], command: parsed.command };
  const rules = parsed.values.get('--rules')?.[0];
  const cwd = parsed.values.get('--cwd')?.[0];
  if (rules !== undefined) out.rulesFile = rules;
  if (cwd !== undefined) out.cwd = cwd;
  return out;
}

/** The JSON printed by `explain`. */
export function explainJson(d: PolicyDecision): object {
  return {
    decision: d.decision,
    rule: d.rule,
    reason: d.reason,
    segments: d.segments.map((s) => ({
      text: s.segment.text,
      argv: s.segment.argv,
      decision: s.decision,
      opaque: s.segment.opaque,
      redirects: s.segment.redirects,
    })),
    uncertain: d.uncertain,
  };
}

export async function explainMain(args: string[]): Promise<number> {
  let parsed: ExplainArgs;
  let rules: PolicyRule[] = [];
  let cwd: string;
  try {
    parsed = parseArgs(args);
    cwd = resolveCwdOption(parsed.cwd);
    if (parsed.rulesFile !== undefined) rules = readRulesFile(parsed.rulesFile);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`agent-bash explain: ${err.message}\n${EXPLAIN_USAGE}\n`);
    return 2;
  }
  const workspaceRoots = parsed.workspaces.length > 0 ? parsed.workspaces.map((w) => path.resolve(cwd, w)) : [cwd];
  const analyzer = await createShellAnalyzer();
  const decision = decide(analyzer.analyze(parsed.command), rules, { cwd, workspaceRoots });
  process.stdout.write(`${JSON.stringify(explainJson(decision), null, 2)}\n`);
  return 0;
}
