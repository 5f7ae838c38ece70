// `agent-bash explain [--rules FILE] [--cwd DIR] [--workspace DIR] -- COMMAND`: prints the policy
// decision for COMMAND as one JSON object, for scripts, CI and anyone debugging a rule list.
// Exit 0 with a decision; exit 2 with a message on bad arguments or a bad rules file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PolicyDecision } from '../core/contracts';
import { decide } from '../core/policy';
import { parsePolicyRules } from '../core/policyRulesSchema';
import type { PolicyRule } from '../core/contracts';
import { createShellAnalyzer } from '../core/shellAnalysis';

export const EXPLAIN_USAGE = 'usage: agent-bash explain [--rules FILE] [--cwd DIR] [--workspace DIR]... -- COMMAND';

/** Every message `explain` exits 2 with. Tests assert these. */
export const EXPLAIN_ERRORS = {
  missingSeparator: 'missing `--` before the command',
  emptyCommand: 'empty command after `--`',
  unknownOption: (opt: string) => `unknown option: ${opt}`,
  missingValue: (opt: string) => `option ${opt} needs a value`,
  repeated: (opt: string) => `option ${opt} given twice`,
  badCwd: (dir: string) => `--cwd ${dir} is not a directory`,
  unreadableRules: (file: string, why: string) => `cannot read rules file ${file}: ${why}`,
  rulesNotJson: (file: string, why: string) => `rules file ${file} is not valid JSON: ${why}`,
  rulesInvalid: (file: string, why: string) => `rules file ${file}: ${why}`,
} as const;

class UsageError extends Error {}

interface ExplainArgs {
  rulesFile?: string;
  cwd?: string;
  workspaces: string[];
  command: string;
}

function parseArgs(args: string[]): ExplainArgs {
  const out: ExplainArgs = { workspaces: [], command: '' };
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') break;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (name !== '--rules' && name !== '--cwd' && name !== '--workspace') throw new UsageError(EXPLAIN_ERRORS.unknownOption(arg));
    let value: string | undefined;
    if (eq > 0 && arg.startsWith('--')) value = arg.slice(eq + 1);
    else value = args[++i];
    if (value === undefined || value === '' || value === '--') throw new UsageError(EXPLAIN_ERRORS.missingValue(name));
    if (name === '--workspace') out.workspaces.push(value);
    else if (name === '--rules') {
      if (out.rulesFile !== undefined) throw new UsageError(EXPLAIN_ERRORS.repeated(name));
      out.rulesFile = value;
    } else {
      if (out.cwd !== undefined) throw new UsageError(EXPLAIN_ERRORS.repeated(name));
      out.cwd = value;
    }
  }
  if (i >= args.length) throw new UsageError(EXPLAIN_ERRORS.missingSeparator);
  out.command = args.slice(i + 1).join(' ');
  if (out.command.trim() === '') throw new UsageError(EXPLAIN_ERRORS.emptyCommand);
  return out;
}

function readRules(file: string): PolicyRule[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(EXPLAIN_ERRORS.unreadableRules(file, err instanceof Error ? (err as NodeJS.ErrnoException).code ?? err.message : String(err)));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(EXPLAIN_ERRORS.rulesNotJson(file, err instanceof Error ? err.message : String(err)));
  }
  const parsed = parsePolicyRules(json);
  if (!parsed.ok) throw new UsageError(EXPLAIN_ERRORS.rulesInvalid(file, parsed.message));
  return parsed.rules;
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
    cwd = path.resolve(parsed.cwd ?? process.cwd());
    if (parsed.cwd !== undefined && !fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UsageError(EXPLAIN_ERRORS.badCwd(parsed.cwd));
    }
    if (parsed.rulesFile !== undefined) rules = readRules(parsed.rulesFile);
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
