// What `explain` and `run` share: `--name value` / `--name=value` options before `--`, the command
// after it, the rules file, and the exact messages of a usage error (exit 2).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PolicyRule } from '../core/contracts';
import { parsePolicyRules } from '../core/policy/policyRulesSchema';

export const CLI_MESSAGES = {
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

export class UsageError extends Error {}

export interface OptionSpec {
  /** Options that take a value. */
  values: readonly string[];
  /** Options without a value. */
  flags?: readonly string[];
  /** Value options that may be given more than once. */
  repeatable?: readonly string[];
  /** Options only: no `--` and no command (`mcp`). */
  noCommand?: boolean;
}

export interface ParsedArgs {
  values: Map<string, string[]>;
  flags: Set<string>;
  command: string;
}

export function parseCliArgs(args: string[], spec: OptionSpec): ParsedArgs {
  const out: ParsedArgs = { values: new Map(), flags: new Set(), command: '' };
  const flags = new Set(spec.flags ?? []);
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--' && !spec.noCommand) break;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (flags.has(name)) {
      if (eq > 0) throw new UsageError(CLI_MESSAGES.unknownOption(arg));
      if (out.flags.has(name)) throw new UsageError(CLI_MESSAGES.repeated(name));
      out.flags.add(name);
      continue;
    }
    if (!spec.values.includes(name)) throw new UsageError(CLI_MESSAGES.unknownOption(arg));
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '' || value === '--') throw new UsageError(CLI_MESSAGES.missingValue(name));
    const list = out.values.get(name) ?? [];
    if (list.length > 0 && !spec.repeatable?.includes(name)) throw new UsageError(CLI_MESSAGES.repeated(name));
    list.push(value);
    out.values.set(name, list);
  }
  if (spec.noCommand) return out;
  if (i >= args.length) throw new UsageError(CLI_MESSAGES.missingSeparator);
  out.command = args.slice(i + 1).join(' ');
  if (out.command.trim() === '') throw new UsageError(CLI_MESSAGES.emptyCommand);
  return out;
}

/** `--cwd` (default: this process's cwd) as an absolute path; a UsageError when it is not a directory. */
export function resolveCwdOption(given: string | undefined): string {
  const cwd = path.resolve(given ?? process.cwd());
  if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(CLI_MESSAGES.badCwd(given ?? cwd));
  return cwd;
}

/** A JSON array of `{match, approval, allowRedirects?}` rules; every problem is a UsageError. */
export function readRulesFile(file: string): PolicyRule[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const why = err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
    throw new UsageError(CLI_MESSAGES.unreadableRules(file, why));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(CLI_MESSAGES.rulesNotJson(file, err instanceof Error ? err.message : String(err)));
  }
  const parsed = parsePolicyRules(json);
  if (!parsed.ok) throw new UsageError(CLI_MESSAGES.rulesInvalid(file, parsed.message));
  return parsed.rules;
}
