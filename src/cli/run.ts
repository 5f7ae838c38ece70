// `agent-bash run [--rules FILE]... [--managed-rules FILE] [--no-builtin-rules] [--cwd DIR] [--timeout S] [--pty] [--yes] [--sandbox …] -- COMMAND`: the whole
// pipeline (policy, cd rewrite, URLs, timeout, local or PTY execution, result text) outside VS Code.
// stdout carries the result text exactly as the model would read it; the exit status is the
// command's (137 for SIGKILL). A timeout prints its notice and exits 1, never 124, so scripts can
// tell "the command said 124" from "we stopped it". A prompt decision is refused unless `--yes`.
// Nothing started here outlives the process: every shell is killed on exit and on SIGTERM/SIGINT.
import { BashExpander } from '../exec/bashExpander';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovalAnswer, ApprovalRequest, Approver, BashSettings, RuleLayer, ToolResult } from '../core/contracts';
import { FileArtifactStore } from '../core/output/artifacts';
import { DEFAULT_MAX_COLUMNS } from '../core/output/outputLimits';
import { DEFAULT_INTERCEPTOR_RULES } from '../core/interceptor';
import { createShellAnalyzer } from '../core/policy/analysis/shellAnalysis';
import { signalNumber } from '../exec/processTree';
import { ToolError } from '../core/errors';
import { startCliProcesses } from './cliProcesses';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxMode, type SandboxSettings } from '../exec/sandbox/sandboxPolicy';
import { parseAllowEntry } from '../exec/sandbox/network/proxyTarget';
import { CLI_MESSAGES, parseCliArgs, readCliRuleLayers, resolveCwdOption, RULE_LAYER_FLAGS, RULE_LAYER_USAGE, RULE_LAYER_VALUES, UsageError, type ParsedArgs } from './cliArgs';
import { pruneRunArtifacts, runArtifactDir } from './runArtifacts';
import { TtyPtyExecutor } from './ttyPty';
import { createPipeline } from '../exec/createPipeline';
import { settingDefault } from '../core/settingsSchema';

export const RUN_USAGE =
  `usage: agent-bash run ${RULE_LAYER_USAGE} [--cwd DIR] [--timeout S] [--pty] [--yes] [--max-line-bytes N] [--sandbox auto|on|off] [--allow-write DIR]... [--allow-domain HOST]... -- COMMAND`;
/** The mark on every process a CLI run starts (the same variable as the extension's session mark). */

/** Every message `run` writes to stderr. Tests assert these. */
export const RUN_MESSAGES = {
  ...CLI_MESSAGES,
  needsApproval: (reason: string) => `refused: this command needs approval (${reason}); rerun with --yes to approve it`,
  /** What the result says (stdout): nobody was asked, so nobody "denied" it. */
  notAsked: (reason: string) => `Command refused: it needs approval (${reason}), and \`agent-bash run\` cannot ask a person; nothing ran. Rerun with --yes to approve it.`,
  artifact: (file: string) => `full output: ${file}`,
  badSandbox: (value: string) => `--sandbox ${value} is not one of auto, on, off`,
  badDomain: (value: string, why: string) => `--allow-domain ${value}: ${why}`,
} as const;

/** Exit status for a result without an exit code that is still an error (timeout, refusal, block). */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

interface RunArgs {
  /** The parsed options, for the rule layers (readCliRuleLayers). */
  parsed: ParsedArgs;
  cwd?: string;
  timeout?: number;
  pty: boolean;
  yes: boolean;
  command: string;
  sandbox: SandboxSettings;
  /** `--max-line-bytes`: the per-line cap (`outputMaxColumns`). */
  maxLineBytes?: number;
}

/** The options every CLI command that runs commands takes for the OS sandbox (`run`, `mcp`). */
export const SANDBOX_OPTIONS = ['--sandbox', '--allow-write', '--allow-domain'];
export const SANDBOX_USAGE = '[--sandbox auto|on|off] [--allow-write DIR]... [--allow-domain HOST]...';

/** `--sandbox`, `--allow-write`, `--allow-domain` as the `agentBash.sandbox.*` settings. */
export function sandboxSettingsOf(values: ReadonlyMap<string, string[]>): SandboxSettings {
  const mode = values.get('--sandbox')?.[0] ?? 'auto';
  if (mode !== 'auto' && mode !== 'on' && mode !== 'off') throw new UsageError(RUN_MESSAGES.badSandbox(mode));
  return {
    ...DEFAULT_SANDBOX_SETTINGS,
    enabled: mode as SandboxMode,
    allowWrite: (values.get('--allow-write') ?? []).map((dir) => path.resolve(dir)),
    allowedDomains: (values.get('--allow-domain') ?? []).map((entry) => {
      const parsed = parseAllowEntry(entry);
      if (!parsed.ok) throw new UsageError(RUN_MESSAGES.badDomain(entry, parsed.why));
      return entry;
    }),
  };
}

export function parseRunArgs(args: string[]): RunArgs {
  const parsed = parseCliArgs(args, {
    values: [...RULE_LAYER_VALUES, '--cwd', '--timeout', '--max-line-bytes', ...SANDBOX_OPTIONS],
    flags: ['--pty', '--yes', ...RULE_LAYER_FLAGS],
    repeatable: ['--allow-write', '--allow-domain', '--rules'],
  });
  const sandbox = sandboxSettingsOf(parsed.values);
  const out: RunArgs = { parsed, pty: parsed.flags.has('--pty'), yes: parsed.flags.has('--yes'), command: parsed.command, sandbox };
  const cwd = parsed.values.get('--cwd')?.[0];
  const timeout = parsed.values.get('--timeout')?.[0];
  if (cwd !== undefined) out.cwd = cwd;
  // parseCliArgs accepted only decimal digits here.
  if (timeout !== undefined) out.timeout = Number(timeout);
  const lineBytes = parsed.values.get('--max-line-bytes')?.[0];
  if (lineBytes !== undefined) out.maxLineBytes = Number(lineBytes);
  return out;
}

/** The settings of a command-line run: the extension's defaults, the given rule layers, no background jobs. */
export function cliSettings(layers: RuleLayer[], maxLineBytes: number = DEFAULT_MAX_COLUMNS): BashSettings {
  return {
    ruleLayers: layers,
    interceptor: { enabled: false, patterns: [...DEFAULT_INTERCEPTOR_RULES] },
    maxTimeout: settingDefault('agentBash.maxTimeout'),
    asyncEnabled: false,
    asyncMaxJobs: settingDefault('agentBash.async.maxJobs'),
    autoBackground: { enabled: settingDefault('agentBash.autoBackground.enabled'), thresholdMs: settingDefault('agentBash.autoBackground.thresholdMs') },
    artifactHeadBytes: settingDefault('agentBash.artifactHeadBytes'),
    outputMaxColumns: maxLineBytes,
    shell: {},
    direnv: settingDefault('agentBash.direnv'),
  };
}

/** The command's status; 1 for other errors (a timeout, a refusal, a block); 0 otherwise. */
export function exitStatusOf(result: ToolResult): number {
  if (result.details.exitCode !== undefined) return result.details.exitCode;
  return result.isError ? EXIT_FAILURE : 0;
}

/** A prompt decision: refused with a message on stderr, or allowed with `--yes`. */
class CliApprover implements Approver {
  constructor(private readonly yes: boolean) {}

  async approve(req: ApprovalRequest): Promise<ApprovalAnswer> {
    if (this.yes) return { kind: 'allow' };
    process.stderr.write(`agent-bash run: ${RUN_MESSAGES.needsApproval(req.decision.reason)}\n`);
    throw new ToolError(RUN_MESSAGES.notAsked(req.decision.reason));
  }
}

export async function runMain(args: string[]): Promise<number> {
  let parsed: RunArgs;
  let layers: RuleLayer[];
  let cwd: string;
  try {
    parsed = parseRunArgs(args);
    cwd = resolveCwdOption(parsed.cwd);
    const read = readCliRuleLayers(parsed.parsed);
    layers = read.layers;
    if (read.warning !== undefined) process.stderr.write(`agent-bash run: ${read.warning}\n`);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`agent-bash run: ${err.message}\n${RUN_USAGE}\n`);
    return EXIT_USAGE;
  }

  // Made only when an artifact is written; older runs' folders are pruned meanwhile, off the run's path.
  const artifactDir = runArtifactDir(os.tmpdir());
  const pruned = pruneRunArtifacts(os.tmpdir(), artifactDir).catch(() => []);
  const settings = cliSettings(layers, parsed.maxLineBytes);
  const sessionId = `cli-${process.pid}`;
  const processes = startCliProcesses({ subcommand: 'run', sessionId, sandbox: parsed.sandbox, cwd, rules: layers.flatMap((l) => l.rules) });
  const { sandbox, executor, pty } = processes;
  const controller = new AbortController();
  let caught: NodeJS.Signals | undefined;

  // First signal: cancel the run (the pipeline kills the command's group) and finish normally, so
  // the cancelled result is still printed. A second one: kill everything now and leave.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (caught) {
      void processes.dispose().then(() => process.exit(128 + (signalNumber(signal) ?? 1)));
      return;
    }
    caught = signal;
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);

  const expander = new BashExpander();
  let tornDown: Promise<void> | undefined;
  const teardown = (): Promise<void> =>
    (tornDown ??= (async () => {
      expander.dispose();
      await Promise.allSettled([processes.dispose(), pruned]);
      removeIfEmpty(artifactDir);
    })());

  try {
    const { pipeline } = createPipeline({
      expander,
      settings: () => settings,
      analyzer: await createShellAnalyzer(),
      approver: new CliApprover(parsed.yes),
      artifacts: new FileArtifactStore(artifactDir),
      executor,
      pty: new TtyPtyExecutor(pty),
      sessionCwd: () => cwd,
      workspaceRoots: () => [cwd],
      sessionId,
      sandbox,
    });
    const input: Record<string, unknown> = { command: parsed.command };
    if (parsed.timeout !== undefined) input.timeout = parsed.timeout;
    if (parsed.pty) input.pty = true;
    // The network namespace the command enters: started now, so the command does not wait for it.
    await sandbox.warmNetwork();
    const result = await pipeline.run(input, { signal: controller.signal });
    const text = result.content.map((c) => c.text).join('\n');
    // Everything is torn down before the result is printed, so the process ends right after it.
    await teardown();
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    const artifactPath = artifactPathOf(artifactDir, result.details.artifactId);
    if (artifactPath) process.stderr.write(`agent-bash run: ${RUN_MESSAGES.artifact(artifactPath)}\n`);
    if (caught) return 128 + (signalNumber(caught) ?? 1);
    return exitStatusOf(result);
  } finally {
    await teardown();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}

/** The file of artifact `id` in `dir`, when there is one. */
function artifactPathOf(dir: string, id: string | undefined): string | undefined {
  if (!id) return undefined;
  try {
    const name = fs.readdirSync(dir).find((n) => n.startsWith(`${id}.`));
    return name === undefined ? undefined : path.join(dir, name);
  } catch {
    return undefined;
  }
}

/** Keeps the folder only when it holds something the user was pointed at. */
function removeIfEmpty(dir: string): void {
  try {
    if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
  } catch {
    // Never created (no artifact), or already gone.
  }
}
