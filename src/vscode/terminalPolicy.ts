// Terminals created directly (ACP `terminal/create`, the public API) pass the same policy as the bash
// tool: the command line they would run is explained, a deny refuses, a prompt asks the user.
import type { CreateTerminalParams } from '../core/contracts';
import type { AgentBashServices } from './services';

const SHELL_NAMES = /(^|\/)(ba|z|k|da)?sh$/;

/** The command line a terminal runs: the `-c` payload of `<shell> [...flags] -c LINE`, else argv joined. */
export function terminalCommandLine(params: CreateTerminalParams): string {
  const args = params.args ?? [];
  if (args.length === 0) return params.command;
  const c = args.lastIndexOf('-c');
  const flagsOnly = args.slice(0, Math.max(c, 0)).every((a) => a.startsWith('-'));
  if (SHELL_NAMES.test(params.command) && c >= 0 && c === args.length - 2 && flagsOnly) return args[c + 1];
  return [params.command, ...args].map(quoteIfNeeded).join(' ');
}

export class TerminalPolicyError extends Error {
  override readonly name = 'TerminalPolicyError';
}

export function terminalDeniedMessage(reason: string): string {
  return `Agent Bash policy denied this command: ${reason}`;
}

export function terminalRefusedMessage(reason: string): string {
  return `The user refused this command: ${reason}`;
}

/** Throws TerminalPolicyError when the policy (or the user) refuses the terminal's command line. */
export async function checkTerminalPolicy(services: AgentBashServices, params: CreateTerminalParams, signal?: AbortSignal): Promise<void> {
  const line = terminalCommandLine(params);
  const cwd = params.cwd ?? services.workspaceCwd();
  const decision = services.pipeline.explain(line, cwd);
  if (decision.decision === 'deny') throw new TerminalPolicyError(terminalDeniedMessage(decision.reason));
  if (decision.decision === 'prompt') {
    const answer = await services.approver.approve({ command: line, cwd, decision }, signal);
    if (answer.kind === 'deny') throw new TerminalPolicyError(terminalRefusedMessage(decision.reason));
  }
}

function quoteIfNeeded(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
