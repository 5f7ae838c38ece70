// `agent-bash explain [--rules FILE]... [--managed-rules FILE] [--no-builtin-rules] [--cwd DIR] [--workspace DIR] [--trace] -- COMMAND`: prints the policy
// decision for COMMAND as one JSON object, for scripts, CI and anyone debugging a rule list; `--trace`
// adds every check that ran, per segment and for the line, each with its stable code.
// Exit 0 with a decision; exit 2 with a message on bad arguments or a bad rules file.
import { BashExpander } from '../exec/bashExpander';
import * as path from 'node:path';
import type { PolicyDecision } from '../core/contracts';
import { decide } from '../core/policy/policy';
import { decisionSentence } from '../core/explainText';
import type { RuleLayer } from '../core/contracts';
import { createShellAnalyzer } from '../core/policy/analysis/shellAnalysis';
import { probeSandbox } from '../exec/sandbox/sandboxProbe';
import { fenceSupport } from '../exec/sandbox/readOnly/readOnlySupport';
import { readOnlyLine } from '../core/policy/checks/readerClass';
import type { ReadOnlyCapability } from '../core/pipeline';
import { CLI_MESSAGES, parseCliArgs, readCliRuleLayers, resolveCwdOption, RULE_LAYER_FLAGS, RULE_LAYER_USAGE, RULE_LAYER_VALUES, UsageError, type ParsedArgs } from './cliArgs';

export const EXPLAIN_USAGE = `usage: agent-bash explain ${RULE_LAYER_USAGE} [--cwd DIR] [--workspace DIR]... [--sandbox auto|on|off] [--trace] -- COMMAND`;

/** Every message `explain` exits 2 with. Tests assert these. */
export const EXPLAIN_ERRORS = {
  ...CLI_MESSAGES,
  badSandbox: (value: string) => `--sandbox ${value} is not one of auto, on, off`,
} as const;

interface ExplainArgs {
  parsed: ParsedArgs;
  cwd?: string;
  workspaces: string[];
  command: string;
  sandbox: string;
  trace: boolean;
}

function parseArgs(args: string[]): ExplainArgs {
  const parsed = parseCliArgs(args, {
    values: [...RULE_LAYER_VALUES, '--cwd', '--workspace', '--sandbox'],
    flags: [...RULE_LAYER_FLAGS, '--trace'],
    repeatable: ['--workspace', '--rules'],
  });
  const sandbox = parsed.values.get('--sandbox')?.[0] ?? 'auto';
  if (!['auto', 'on', 'off'].includes(sandbox)) throw new UsageError(EXPLAIN_ERRORS.badSandbox(sandbox));
  const out: ExplainArgs = { parsed, workspaces: parsed.values.get('--workspace') ?? [], command: parsed.command, sandbox, trace: parsed.flags.has('--trace') };
  const cwd = parsed.values.get('--cwd')?.[0];
  if (cwd !== undefined) out.cwd = cwd;
  return out;
}

/** The JSON printed by `explain`. */
export function explainJson(d: PolicyDecision, sandboxed = false, command = '', readOnly?: ReadOnlyCapability): object {
  return {
    decision: d.decision,
    rule: d.rule,
    // The layer of the deciding rule (`builtin`, `managed`, `user`, `workspace`, `folder`, `file`) and where it was read.
    layer: (d.rule && d.layer) ?? null,
    layerSource: (d.rule && d.layerSource) ?? null,
    // What decided, as a stable code: rule, critical, uncertain, opaque, redirect, external_directory, default, unreadable_rules.
    kind: d.kind,
    reason: d.reason,
    // The decision as a person reads it (the sentence Explain Policy Decision opens with).
    summary: decisionSentence(command, d),
    segments: d.segments.map((s) => ({
      text: s.segment.text,
      argv: s.segment.argv,
      decision: s.decision,
      // Each command of the line with its own deciding rule (and layer), code and reason.
      rule: s.rule,
      layer: (s.rule && s.layer) ?? null,
      kind: s.kind ?? null,
      reason: s.reason ?? null,
      opaque: s.segment.opaque,
      redirects: s.segment.redirects,
      // With --trace: every check this segment went through, in order (`check` is a stable code).
      ...(s.trace ? { trace: s.trace } : {}),
    })),
    ...(d.trace ? { trace: d.trace } : {}),
    uncertain: d.uncertain,
    sandboxed,
    // A line that would run without asking because every program reads: `enforced` (the kernel
    // holds it read-only, offline, exec-limited) or `not enforced: why`; null for any other line.
    readOnly: readOnly === undefined || !readOnlyLine(d) ? null : readOnly.enforced ? 'enforced' : `not enforced: ${readOnly.why ?? 'unknown reason'}`,
  };
}

export async function explainMain(args: string[]): Promise<number> {
  let parsed: ExplainArgs;
  let layers: RuleLayer[];
  let cwd: string;
  try {
    parsed = parseArgs(args);
    cwd = resolveCwdOption(parsed.cwd);
    const read = readCliRuleLayers(parsed.parsed);
    layers = read.layers;
    if (read.warning !== undefined) process.stderr.write(`agent-bash explain: ${read.warning}\n`);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`agent-bash explain: ${err.message}\n${EXPLAIN_USAGE}\n`);
    return 2;
  }
  const workspaceRoots = parsed.workspaces.length > 0 ? parsed.workspaces.map((w) => path.resolve(cwd, w)) : [cwd];
  const analyzer = await createShellAnalyzer();
  const expander = new BashExpander();
  const decision = decide(analyzer.analyze(parsed.command), layers, { cwd, workspaceRoots, expander, ...(parsed.trace ? { trace: true } : {}) });
  expander.dispose();
  // `run` with the same --sandbox would sandbox it (`on` where it cannot start refuses instead).
  const sandboxed = parsed.sandbox !== 'off' && probeSandbox().sandbox;
  const readOnly: ReadOnlyCapability = sandboxed ? fenceSupport('sandboxed') : { enforced: false, why: 'read-only not enforced: no OS sandbox here' };
  process.stdout.write(`${JSON.stringify(explainJson(decision, sandboxed, parsed.command, { enforced: readOnly.enforced, ...(readOnly.why ? { why: readOnly.why } : {}) }), null, 2)}\n`);
  return 0;
}
