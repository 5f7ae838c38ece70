// Room vscode/chat/: the agent_bash language model tool for chat agents (tool, late job results, tool availability).
// The Language Model Tool `agent_bash` for chat agent panels (Copilot agent mode and others). VS Code
// asks the user through its own confirmation UI for prompt-level commands (prepareInvocation), so
// invoke() runs them pre-approved; a denied command is never offered for confirmation and comes back
// as the pipeline's error text.
import * as vscode from 'vscode';
import type { Approver, CallerInfo, PolicyDecision, ToolResult } from '../../core/contracts';
import { sandboxForGate } from '../../core/pipeline';
import { runsWithoutAsking, withSandboxOff } from '../../core/policy/policyGate';
import type { JobInbox } from './jobInbox';
import type { AgentBashServices } from '../services';

export const LM_TOOL_NAME = 'agent_bash';

interface ToolInput {
  command?: unknown;
  cwd?: unknown;
  env?: unknown;
  sandbox?: unknown;
}

/**
 * What VS Code's confirmation asks about, by the pipeline's sandbox rule: `sandbox: "off"` always
 * confirms (saying why); a prompt that will run sandboxed with autoApprove on does not.
 */
function confirmationDecision(services: AgentBashServices, decision: PolicyDecision, off: boolean): PolicyDecision {
  const box = sandboxForGate(services.sandbox, off);
  // The sandbox is on but cannot start: the run refuses with its own message, nothing to confirm.
  if (box.error !== undefined) return { ...decision, decision: decision.decision === 'deny' ? 'deny' : 'allow' };
  const asked = withSandboxOff(decision, off);
  return runsWithoutAsking(asked, { ...(box.gate ? { sandbox: box.gate } : {}), sandboxOff: off }) ? { ...asked, decision: 'allow' } : asked;
}

const PRE_APPROVED: Approver = { approve: async () => ({ kind: 'allow' }) };
/**
 * The 1.95 tool API tells invoke() neither the chat participant nor the model (the invocation token is
 * opaque), so every chat's commands share one "AB: Copilot" terminal.
 */
const LM_CALLER: CallerInfo = { kind: 'lmTool', name: 'Copilot', sessionId: 'chat' };

export function resultText(result: ToolResult): string {
  return result.content.map((c) => c.text).join('\n');
}

export function registerLmTool(services: AgentBashServices, inbox?: JobInbox): vscode.Disposable {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- hosts without the Language Model API (older VS Code forks) lack `vscode.lm`, whatever the types say.
  if (!vscode.lm?.registerTool) return new vscode.Disposable(() => undefined);
  return vscode.lm.registerTool<ToolInput>(LM_TOOL_NAME, {
    prepareInvocation(options) {
      const command = typeof options.input.command === 'string' ? options.input.command : '';
      const cwd = typeof options.input.cwd === 'string' ? options.input.cwd : undefined;
      const env = isStringRecord(options.input.env) ? options.input.env : undefined;
      const decision = command ? confirmationDecision(services, services.pipeline.explain(command, cwd, env), options.input.sandbox === 'off') : undefined;
      if (decision?.decision === 'prompt') {
        return {
          invocationMessage: `Running \`${oneLine(command)}\``,
          confirmationMessages: {
            title: 'Agent Bash: run this command?',
            message: new vscode.MarkdownString(
              `\`\`\`sh\n${command}\n\`\`\`\n\nWorking directory: \`${cwd ?? services.workspaceCwd()}\`\n\n${decision.reason}`,
            ),
          },
        };
      }
      return { invocationMessage: command ? `Running \`${oneLine(command)}\`` : 'Running a command' };
    },
    async invoke(options, token) {
      const controller = new AbortController();
      const sub = token.onCancellationRequested(() => controller.abort());
      try {
        // Inside a chat request VS Code already asked the user (prepareInvocation's confirmation);
        // a call with no invocation token (another extension) goes through our own approval dialog.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the token's type is `never | undefined` (opaque), its value an object.
        const approved = options.toolInvocationToken !== undefined ? { approver: PRE_APPROVED } : {};
        const result = await services.pipeline.run(options.input, { signal: controller.signal, caller: LM_CALLER, ...approved });
        if (result.details.async?.state === 'running') inbox?.track(result.details.async.jobId);
        // Background jobs that finished since the model's last call ride along with this result.
        const late = inbox?.drain() ?? [];
        return new vscode.LanguageModelToolResult(
          [resultText(result), ...late].map((text) => new vscode.LanguageModelTextPart(text)),
        );
      } finally {
        sub.dispose();
      }
    },
  });
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return !!value && typeof value === 'object' && Object.values(value).every((v) => typeof v === 'string');
}

function oneLine(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
