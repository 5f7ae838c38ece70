// Terminals created directly (ACP `terminal/create`, the public API) pass the same policy as the bash
// tool: the command line they would run is explained, a deny refuses, a prompt asks the user.
import { policyCommandLine } from '../core/policy/terminalCommandLine';
import type { CreateTerminalParams } from '../core/contracts';
import { commandDeniedMessage, userDeniedMessage } from '../core/pipeline';
import type { AgentBashServices } from './services';

export class TerminalPolicyError extends Error {
  override readonly name = 'TerminalPolicyError';
}

/** Throws TerminalPolicyError when the policy (or the user) refuses the terminal's command line. */
export async function checkTerminalPolicy(services: AgentBashServices, params: CreateTerminalParams, signal?: AbortSignal): Promise<void> {
  const line = policyCommandLine(params);
  const cwd = params.cwd ?? services.workspaceCwd();
  const env = params.env?.length ? Object.fromEntries(params.env.map((v) => [v.name, v.value])) : undefined;
  const decision = services.pipeline.explain(line, cwd, env);
  if (decision.decision === 'deny') throw new TerminalPolicyError(commandDeniedMessage(decision.reason));
  if (decision.decision === 'prompt') {
    const answer = await services.approver.approve({ command: line, cwd, decision }, signal);
    if (answer.kind === 'deny') throw new TerminalPolicyError(userDeniedMessage(decision.reason));
  }
}
