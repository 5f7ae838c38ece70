// `agent-bash mcp [--rules FILE] [--cwd DIR] [--yes] [--sandbox …]`: the MCP tools over stdio for
// clients that only spawn processes (no VS Code: the local executor, the CLI's policy and the OS
// sandbox as `run` has it). There is no dialog here, so a
// prompt-level command is refused with a message saying so unless `--yes` approves them all. The
// process is one MCP session: when the client closes stdin or signals us, every command, job and
// shell it started is killed and the artifacts are removed.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ApprovalAnswer, ApprovalRequest, Approver, PolicyRule } from '../core/contracts';
import { ToolError } from '../core/errors';
import { FileArtifactStore } from '../core/output/artifacts';
import { BashPipeline } from '../core/pipeline';
import { createShellAnalyzer } from '../core/policy/shellAnalysis';
import { direnvStage } from '../exec/direnv';
import { BashJobManager } from '../exec/jobManager';
import type { SandboxSettings } from '../exec/sandbox/sandboxPolicy';
import { createBashMcpServer } from '../mcp/bashMcpServer';
import { McpCallerSession } from '../mcp/mcpSession';
import type { McpBackend } from '../mcp/mcpTools';
import { parseCliArgs, readRulesFile, resolveCwdOption, UsageError } from './cliArgs';
import { startCliProcesses } from './cliProcesses';
import { cliSettings, EXIT_USAGE, SANDBOX_OPTIONS, SANDBOX_USAGE, sandboxSettingsOf } from './run';

export const MCP_USAGE = `usage: agent-bash mcp [--rules FILE] [--cwd DIR] [--yes] ${SANDBOX_USAGE}`;
export const MCP_CLI_VERSION = '0.1.0';

export function needsApprovalMessage(reason: string): string {
  return (
    `Command not run: it needs approval (${reason}), and this stdio MCP server has no approval dialog. ` +
    'Ask the user to add an allow rule to the server\'s --rules file, or to start it with --yes to approve every prompt-level command.'
  );
}

/** Prompt-level commands: approved with `--yes`, otherwise refused with a message the model reads. */
class StdioApprover implements Approver {
  constructor(private readonly yes: boolean) {}

  async approve(req: ApprovalRequest): Promise<ApprovalAnswer> {
    if (this.yes) return { kind: 'allow' };
    throw new ToolError(needsApprovalMessage(req.decision.reason));
  }
}

export async function mcpMain(args: string[]): Promise<number> {
  let rules: PolicyRule[] = [];
  let cwd: string;
  let yes: boolean;
  let sandboxSettings: SandboxSettings;
  try {
    const parsed = parseCliArgs(args, {
      values: ['--rules', '--cwd', ...SANDBOX_OPTIONS],
      flags: ['--yes'],
      repeatable: ['--allow-write', '--allow-domain'],
      noCommand: true,
    });
    sandboxSettings = sandboxSettingsOf(parsed.values);
    cwd = resolveCwdOption(parsed.values.get('--cwd')?.[0]);
    const rulesFile = parsed.values.get('--rules')?.[0];
    if (rulesFile !== undefined) rules = readRulesFile(rulesFile);
    yes = parsed.flags.has('--yes');
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`agent-bash mcp: ${err.message}\n${MCP_USAGE}\n`);
    return EXIT_USAGE;
  }

  const artifactDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-'));
  const settings = { ...cliSettings(rules), asyncEnabled: true };
  const sessionId = `mcp-stdio-${process.pid}`;
  const processes = startCliProcesses({ subcommand: 'mcp', sessionId, sandbox: sandboxSettings, cwd, rules });
  const { sandbox, executor, pty } = processes;
  const jobs = new BashJobManager(() => settings.asyncMaxJobs);
  const artifacts = new FileArtifactStore(artifactDir);
  const pipeline = new BashPipeline({
    settings: () => settings,
    analyzer: await createShellAnalyzer(),
    approver: new StdioApprover(yes),
    artifacts,
    executor,
    pty,
    jobs,
    sessionCwd: () => cwd,
    workspaceRoots: () => [cwd],
    sessionId,
    environment: direnvStage(() => settings.direnv, undefined, sandbox),
    sandbox: { levelFor: (off) => sandbox.levelFor(off), autoApprove: () => false, watch: () => sandbox.watch() },
  });
  const backend: McpBackend = {
    run: (input, opts) => pipeline.run(input, opts),
    jobs,
    artifacts,
    asyncEnabled: () => settings.asyncEnabled,
  };
  const session = new McpCallerSession(sessionId, jobs);
  const server = createBashMcpServer(backend, session, MCP_CLI_VERSION);

  return new Promise<number>((resolve) => {
    let ending = false;
    const end = (): void => {
      if (ending) return;
      ending = true;
      session.close();
      void Promise.allSettled([jobs.dispose(), server.close()])
        .then(() => processes.dispose())
        .then(() => {
          fs.rmSync(artifactDir, { recursive: true, force: true });
          resolve(0);
        });
    };
    process.stdin.once('end', end);
    process.stdin.once('close', end);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, end);
    server.onclose = end;
    server.connect(new StdioServerTransport()).catch((err: unknown) => {
      process.stderr.write(`agent-bash mcp: ${err instanceof Error ? err.message : String(err)}\n`);
      end();
    });
  });
}
