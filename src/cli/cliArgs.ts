// What `explain` and `run` share: `--name value` / `--name=value` options before `--`, the command
// after it, the rules file, and the exact messages of a usage error (exit 2).
import * as fs from 'node:fs';
import { MIN_MCP_RESULT_CHARS } from '../mcp/resultCap';
import * as path from 'node:path';
import type { PolicyRule, RuleLayer } from '../core/contracts';
import { builtinLayer, managedRulesPath, readManagedLayer, readRulesFileText, RULES_FILE_MESSAGES } from '../core/policy/rules/ruleLayers';

/** Longest path the kernel takes (PATH_MAX minus its NUL), and longest single name in it. */
export const PATH_MAX_BYTES = 4095;
export const NAME_MAX_BYTES = 255;

/** Every message of a usage error (exit 2), for every option of every command. Tests assert these. */
export const CLI_MESSAGES = {
  missingSeparator: 'missing `--` before the command',
  commandWithoutSeparator: (word: string) => `the command must follow \`--\` (found ${shownValue(word)} where an option was expected)`,
  emptyCommand: 'empty command after `--`',
  unknownOption: (opt: string) => `unknown option: ${opt}`,
  missingValue: (opt: string) => `option ${opt} needs a value`,
  repeated: (opt: string) => `option ${opt} given twice`,
  badCwd: (dir: string) => `--cwd ${shownValue(dir)} is not a directory`,
  notSeconds: (opt: string, value: string) => `${opt} ${shownValue(value)} is not a number of seconds (use digits, e.g. 30 or 2.5; 0 means no limit)`,
  notByteCount: (opt: string, value: string) => `${opt} ${shownValue(value)} is not a number of bytes (digits; 0 means no limit)`,
  notCharacterCount: (opt: string, value: string) => `${opt} ${shownValue(value)} is not a number of characters (digits, at least ${MIN_MCP_RESULT_CHARS})`,
  pathTooLong: (opt: string, value: string) =>
    `${opt} is too long (${Buffer.byteLength(value)} bytes; a path may have ${PATH_MAX_BYTES} bytes and each name in it ${NAME_MAX_BYTES})`,
  unusablePath: (opt: string, value: string, why: string) => `${opt} ${shownValue(value)} cannot be used: ${why}`,
  unreadableRules: RULES_FILE_MESSAGES.unreadable,
  rulesNotJson: RULES_FILE_MESSAGES.notJson,
  rulesInvalid: RULES_FILE_MESSAGES.invalid,
  /** The warning (stderr) when the machine's managed rules file is there but unusable. */
  managedWarning: (reason: string) => `warning: ${reason}`,
} as const;

/** How a value appears in a message: as typed, or JSON-quoted and shortened when that would mislead. */
function shownValue(value: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point: such a value is shown JSON-quoted
  const plain = value.length > 0 && value.length <= 200 && !/[\s"\\\x00-\x1f\x7f]/.test(value);
  if (plain) return value;
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 60)}…${value.slice(-20)}` : value);
}

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

/** Decimal seconds: `30`, `2.5`, `0`. Not ` ` (Number() reads it as 0), `1e3`, `0x10` or `-1`. */
const SECONDS = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A path value that the kernel would refuse by length; undefined when it is fine. */
function pathLengthProblem(opt: string, value: string): string | undefined {
  const tooLong = Buffer.byteLength(value) > PATH_MAX_BYTES || value.split('/').some((name) => Buffer.byteLength(name) > NAME_MAX_BYTES);
  return tooLong ? CLI_MESSAGES.pathTooLong(opt, value) : undefined;
}

/**
 * What each option's value must be, for every command: `parseCliArgs` checks each value here, so a
 * bad value is always a UsageError that names its option. Options not listed take any value.
 */
const VALUE_CHECKS: Record<string, (opt: string, value: string) => string | undefined> = {
  '--timeout': (opt, value) => (SECONDS.test(value) ? undefined : CLI_MESSAGES.notSeconds(opt, value)),
  '--max-line-bytes': (opt, value) => (/^\d+$/.test(value) ? undefined : CLI_MESSAGES.notByteCount(opt, value)),
  '--max-result-chars': (opt, value) => (/^\d+$/.test(value) && Number(value) >= MIN_MCP_RESULT_CHARS ? undefined : CLI_MESSAGES.notCharacterCount(opt, value)),
  '--cwd': (opt, value) => pathLengthProblem(opt, value) ?? cwdProblem(opt, value),
  '--rules': pathLengthProblem,
  '--managed-rules': pathLengthProblem,
  '--workspace': pathLengthProblem,
};

/** Whether `value` names a directory we can run in; the message when it does not. */
function cwdProblem(opt: string, value: string): string | undefined {
  try {
    if (fs.statSync(path.resolve(value)).isDirectory()) return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOENT and ENOTDIR (`afile/sub`) both mean: there is no such directory.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      return code === 'ENAMETOOLONG' ? CLI_MESSAGES.pathTooLong(opt, value) : CLI_MESSAGES.unusablePath(opt, value, code ?? String(err));
    }
  }
  return CLI_MESSAGES.badCwd(value);
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
    // A word that is no option at all is the start of a command someone forgot to put after `--`.
    if (!arg.startsWith('-')) throw new UsageError(CLI_MESSAGES.commandWithoutSeparator(arg));
    if (!spec.values.includes(name)) throw new UsageError(CLI_MESSAGES.unknownOption(arg));
    const value = eq > 0 ? arg.slice(eq + 1) : args.at(++i);
    if (value === undefined || value === '' || value === '--') throw new UsageError(CLI_MESSAGES.missingValue(name));
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- options not listed in VALUE_CHECKS (--sandbox, --allow-write, …) have no check
    const problem = VALUE_CHECKS[name]?.(name, value);
    if (problem !== undefined) throw new UsageError(problem);
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
  const problem = VALUE_CHECKS['--cwd']('--cwd', given ?? cwd);
  if (problem !== undefined) throw new UsageError(problem);
  return cwd;
}

/** A JSON array of `{match, approval, allowRedirects?}` rules; every problem is a UsageError. */
export function readRulesFile(file: string): PolicyRule[] {
  const read = readRulesFileText(file);
  if (!read.ok) throw new UsageError(read.message);
  return read.rules;
}

/** The options of the rule layers, for every command that decides (`run`, `mcp`, `explain`). */
export const RULE_LAYER_VALUES = ['--rules', '--managed-rules'] as const;
export const RULE_LAYER_FLAGS = ['--no-builtin-rules'] as const;
export const RULE_LAYER_USAGE = '[--rules FILE]... [--managed-rules FILE] [--no-builtin-rules]';

export interface CliRuleLayers {
  layers: RuleLayer[];
  /** Why every command asks, when the machine's managed file is there but unusable (told once, on stderr). */
  warning?: string;
}

/**
 * The layers of a CLI run: the built-in list (unless `--no-builtin-rules`), the managed file
 * (`--managed-rules FILE`, else the machine's own), then each `--rules FILE` as its own layer.
 * `--managed-rules` stands for the managed file: one that cannot be read or is invalid makes every
 * command ask, with a warning, exactly like the machine's; but a missing one is a UsageError (the
 * machine's missing file is simply no layer). A `--rules` file that cannot be used is a UsageError.
 */
export function readCliRuleLayers(parsed: Pick<ParsedArgs, 'values' | 'flags'>, managedPath: string = managedRulesPath()): CliRuleLayers {
  const layers: RuleLayer[] = [];
  if (!parsed.flags.has('--no-builtin-rules')) layers.push(builtinLayer());
  const managedFile = parsed.values.get('--managed-rules')?.[0];
  if (managedFile !== undefined) {
    const read = readRulesFileText(managedFile);
    if (!read.ok && read.missing) throw new UsageError(read.message);
  }
  const managed = readManagedLayer(managedFile ?? managedPath);
  if (managed) layers.push(managed);
  const warning = managed?.problem !== undefined ? CLI_MESSAGES.managedWarning(managed.problem) : undefined;
  for (const file of parsed.values.get('--rules') ?? []) layers.push({ layer: 'file', source: file, rules: readRulesFile(file) });
  return { layers, ...(warning !== undefined ? { warning } : {}) };
}
