// `agent-bash mcp [--rules FILE]... [--managed-rules FILE] [--no-builtin-rules] [--cwd DIR] [--yes] [--sandbox …]`: the MCP tools over stdio for
// clients that only spawn processes (no VS Code: the local executor, the CLI's policy and the OS
// sandbox as `run` has it). There is no dialog here, so a
// prompt-level command is refused with a message saying so unless `--yes` approves them all. The
// process is one MCP session: when the client closes stdin or signals us, every command, job and
// shell it started is killed and the artifacts are removed.
import { BashExpander } from '../exec/bashExpander';
import * as fs from 'node:fs';
import type { ApprovalAnswer, ApprovalRequest, Approver, RuleLayer } from '../core/contracts';
import { ToolError } from '../core/errors';
import { FileArtifactStore } from '../core/output/artifacts';
import type { BashPipeline } from '../core/pipeline';
import { createShellAnalyzer } from '../core/policy/analysis/shellAnalysis';
import { BashJobManager } from '../exec/jobManager';
import type { SandboxSettings } from '../exec/sandbox/sandboxPolicy';
import { makeOwnedTempDir } from '../exec/sandbox/cleanup/tempSweep';
import { configErrorMessage, createBashMcpServer, createConfigErrorMcpServer } from '../mcp/bashMcpServer';
import { LineStdioServerTransport } from '../mcp/stdioTransport';
import { McpCallerSession } from '../mcp/mcpSession';
import type { McpBackend } from '../mcp/mcpTools';
import { DEFAULT_MCP_RESULT_CHARS } from '../mcp/resultCap';
import { parseCliArgs, readCliRuleLayers, resolveCwdOption, RULE_LAYER_FLAGS, RULE_LAYER_USAGE, RULE_LAYER_VALUES, UsageError } from './cliArgs';
import { startCliProcesses, type CliProcesses } from './cliProcesses';
import { cliSettings, EXIT_USAGE, SANDBOX_OPTIONS, SANDBOX_USAGE, sandboxSettingsOf } from './run';
import { createPipeline } from '../exec/createPipeline';

export const MCP_USAGE = `usage: agent-bash mcp ${RULE_LAYER_USAGE} [--cwd DIR] [--yes] [--allow-unsandboxed] [--max-result-chars N] [--max-line-bytes N] ${SANDBOX_USAGE}`;
export const MCP_CLI_VERSION = '0.1.0';

export function needsApprovalMessage(reason: string): string {
  return (
    `Command refused: it needs approval (${reason}), and this server cannot ask a person; ` +
    "start it with --yes (approves every prompt-level command) or add a rule that allows it to the server's --rules file."
  );
}

/** `sandbox: "off"` under `--yes` alone: leaving the sandbox takes its own flag. */
export function unsandboxedRefusedMessage(reason: string): string {
  return (
    `Command refused: it asks to run outside the OS sandbox (${reason}), and this server cannot ask a person; ` +
    '--yes approves prompt-level commands inside the sandbox only; the user can start the server with --allow-unsandboxed as well to allow `"sandbox": "off"`.'
  );
}

/**
 * Prompt-level commands: approved with `--yes`, otherwise refused with a message the model reads.
 * A call that asks to leave the sandbox needs `--allow-unsandboxed` besides.
 */
class StdioApprover implements Approver {
  constructor(
    private readonly yes: boolean,
    private readonly allowUnsandboxed: boolean,
  ) {}

  async approve(req: ApprovalRequest): Promise<ApprovalAnswer> {
    if (req.sandboxOff && !this.allowUnsandboxed) throw new ToolError(this.yes ? unsandboxedRefusedMessage(req.decision.reason) : needsApprovalMessage(req.decision.reason));
    if (this.yes) return { kind: 'allow' };
    throw new ToolError(needsApprovalMessage(req.decision.reason));
  }
}

/** Serves the configuration error until the client goes away; then exits with the usage status. */
function serveConfigError(message: string): Promise<number> {
  const server = createConfigErrorMcpServer(message, MCP_CLI_VERSION);
  return new Promise<number>((resolve) => {
    let ending = false;
    const end = (): void => {
      if (ending) return;
      ending = true;
      void server.close().finally(() => resolve(EXIT_USAGE));
    };
    process.stdin.once('end', end);
    process.stdin.once('close', end);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, end);
    server.onclose = end;
    server.connect(new LineStdioServerTransport()).catch(end);
  });
}

export async function mcpMain(args: string[]): Promise<number> {
  let layers: RuleLayer[];
  let cwd: string;
  let yes: boolean;
  let allowUnsandboxed: boolean;
  let maxResultChars: number;
  let maxLineBytes: number | undefined;
  let sandboxSettings: SandboxSettings;
  try {
    const parsed = parseCliArgs(args, {
      values: [...RULE_LAYER_VALUES, '--cwd', '--max-result-chars', '--max-line-bytes', ...SANDBOX_OPTIONS],
      flags: ['--yes', '--allow-unsandboxed', ...RULE_LAYER_FLAGS],
      repeatable: ['--allow-write', '--allow-domain', '--rules'],
      noCommand: true,
    });
    sandboxSettings = sandboxSettingsOf(parsed.values);
    cwd = resolveCwdOption(parsed.values.get('--cwd')?.[0]);
    const read = readCliRuleLayers(parsed);
    layers = read.layers;
    if (read.warning !== undefined) process.stderr.write(`agent-bash mcp: ${read.warning}\n`);
    yes = parsed.flags.has('--yes');
    allowUnsandboxed = parsed.flags.has('--allow-unsandboxed');
    const chars = parsed.values.get('--max-result-chars')?.[0];
    maxResultChars = chars === undefined ? DEFAULT_MCP_RESULT_CHARS : Number(chars);
    const lineBytes = parsed.values.get('--max-line-bytes')?.[0];
    if (lineBytes !== undefined) maxLineBytes = Number(lineBytes);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`agent-bash mcp: ${err.message}\n${MCP_USAGE}\n`);
    // A person at a terminal has read it; a client gets it as the answer to every tool call.
    if (process.stdin.isTTY) return EXIT_USAGE;
    return serveConfigError(configErrorMessage(err.message, MCP_USAGE));
  }

  const artifactDir = makeOwnedTempDir('mcp');
  const settings = { ...cliSettings(layers, maxLineBytes), asyncEnabled: true };
  const sessionId = `mcp-stdio-${process.pid}`;
  const jobs = new BashJobManager(() => settings.asyncMaxJobs);
  const artifacts = new FileArtifactStore(artifactDir);
  // `initialize` is answered before any warm-up: clients give a server a few seconds to start (Gemini
  // CLI's health check: 5 s) and leave its tools out of the first turn when it is late (Codex). The
  // parser, the orphan sweep and the sandbox's network start right after, and the first command
  // waits for them only if they are not ready yet.
  let processes: CliProcesses | undefined;
  const expander = new BashExpander();
  const ready = new Promise<BashPipeline>((resolve, reject) => {
    setImmediate(() => {
      void (async () => {
        processes = startCliProcesses({ subcommand: 'mcp', sessionId, sandbox: sandboxSettings, cwd, rules: layers.flatMap((l) => l.rules) });
        const { sandbox, executor, pty } = processes;
        return createPipeline({
          expander,
          settings: () => settings,
          analyzer: await createShellAnalyzer(),
          approver: new StdioApprover(yes, allowUnsandboxed),
          artifacts,
          executor,
          pty,
          jobs,
          sessionCwd: () => cwd,
          workspaceRoots: () => [cwd],
          sessionId,
          sandbox,
        }).pipeline;
      })().then(resolve, reject);
    });
  });
  // Said once on stderr; each call that needs the pipeline gets the same error as its result.
  ready.catch((err: unknown) => process.stderr.write(`agent-bash mcp: ${err instanceof Error ? err.message : String(err)}\n`));
  const backend: McpBackend = {
    run: async (input, opts) => (await ready).run(input, opts),
    jobs,
    artifacts,
    asyncEnabled: () => settings.asyncEnabled,
    maxResultChars: () => maxResultChars,
    route: 'stdio',
  };
  const session = new McpCallerSession(sessionId, jobs);
  const server = createBashMcpServer(backend, session, MCP_CLI_VERSION);

  return new Promise<number>((resolve) => {
    let ending = false;
    const end = (): void => {
      if (ending) return;
      ending = true;
      session.close();
      expander.dispose();
      void Promise.allSettled([jobs.dispose(), server.close(), ready])
        .then(() => processes?.dispose())
        .then(() => {
          fs.rmSync(artifactDir, { recursive: true, force: true });
          resolve(0);
        });
    };
    process.stdin.once('end', end);
    process.stdin.once('close', end);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, end);
    server.onclose = end;
    server.connect(new LineStdioServerTransport()).catch((err: unknown) => {
      process.stderr.write(`agent-bash mcp: ${err instanceof Error ? err.message : String(err)}\n`);
      end();
    });
  });
}
