// Terminals created directly through the public API pass the same policy gate as the bash tool: the
// command line they would run is explained, a deny refuses, a prompt asks the user.
import { policyCommandLine } from '../../core/policy/terminalCommandLine';
import type { CallerInfo, CreateTerminalParams } from '../../core/contracts';
import { COMMAND_ABORTED } from '../../core/pipeline';
import { passPolicyGate } from '../../core/policy/policyGate';
import type { AgentBashServices } from '../services';

export class TerminalPolicyError extends Error {
  override readonly name = 'TerminalPolicyError';
}

/** Throws TerminalPolicyError when the policy (or the user) refuses the terminal's command line. */
export async function checkTerminalPolicy(
  services: AgentBashServices,
  params: CreateTerminalParams,
  options: { signal?: AbortSignal; caller?: CallerInfo } = {},
): Promise<void> {
  const env = params.env?.length ? Object.fromEntries(params.env.map((v) => [v.name, v.value])) : undefined;
  const verdict = await passPolicyGate(
    { decide: (command, cwd) => services.pipeline.decide(command, cwd), approver: services.approver },
    {
      command: policyCommandLine(params),
      cwd: params.cwd ?? services.workspaceCwd(),
      ...(env ? { env } : {}),
      ...(options.caller ? { caller: options.caller } : {}),
    },
    options.signal,
  );
  if (verdict.kind === 'refuse') throw new TerminalPolicyError(verdict.message);
  if (verdict.kind === 'aborted') throw new TerminalPolicyError(COMMAND_ABORTED);
}
