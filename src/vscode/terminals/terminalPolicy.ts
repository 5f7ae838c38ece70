// Terminals created directly through the public API pass the same policy gate as the bash tool: the
// command line they would run is explained, a deny refuses, a prompt asks the user.
import { policyCommandLine } from '../../core/policy/analysis/terminalCommandLine';
import type { CallerInfo, CreateTerminalParams } from '../../core/contracts';
import { COMMAND_ABORTED, fencedReadOf } from '../../core/pipeline';
import type { ReadOnlyLine } from '../../core/policy/checks/readerClass';
import { passPolicyGate } from '../../core/policy/policyGate';
import type { AgentBashServices } from '../services';

export class TerminalPolicyError extends Error {
  override readonly name = 'TerminalPolicyError';
}

/**
 * Throws TerminalPolicyError when the policy (or the user) refuses the terminal's command line;
 * returns the read-only plan when it is an auto-approved read the fence holds (docs/SANDBOX.md).
 */
export async function checkTerminalPolicy(
  services: AgentBashServices,
  params: CreateTerminalParams,
  options: { signal?: AbortSignal; caller?: CallerInfo } = {},
): Promise<ReadOnlyLine | undefined> {
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
  return fencedReadOf(verdict, services.sandbox, false);
}
