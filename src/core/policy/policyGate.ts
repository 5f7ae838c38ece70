// The one policy gate every host passes before anything runs: decide (the rules, then the env risk),
// refuse on deny, ask on prompt. It returns a verdict instead of throwing, so each host turns a refusal
// into its own error (a tool error, a JSON-RPC error, an API error) with the same message text.
import type { Approver, CallerInfo } from '../contracts';
import type { DecidedBy, PolicyDecision } from './policyContracts';
import { localeCharsetReason } from './analysis/localeCharset';
import { isInertEnvName, isInertEnvValue, parsesAsUtf8 } from './analysis/sensitiveVariables';
import { isCodeLoadingAssignment } from './analysis/shellNormalize';

/** A deny rule (or a critical/deny verdict) fired: nothing ran. */
export function commandDeniedMessage(reason: string): string {
  return `Command denied: ${reason}`;
}
/** The user answered "deny" to the approval prompt: nothing ran. */
export function userDeniedMessage(reason: string): string {
  return `Command denied by the user: ${reason}`;
}
/** Why an `env` parameter makes an allowed command ask first. */
export function envRiskReason(name: string): string {
  return `the \`env\` parameter sets \`${name}\`, which can make programs load other code`;
}

/** Why an `env` parameter with a name outside the inert allowlist makes an allowed command ask first. */
export function envNotInertReason(name: string): string {
  return `the \`env\` parameter sets \`${name}\`; only inert names (locale, time zone, colour, terminal size) are auto-approved`;
}

/**
 * The `env` parameter is not part of the command text the rules read, and a program may read any
 * variable of its environment (`BASH_ENV`, `LD_PRELOAD`, `GIT_*`, `LESSOPEN`, `TAR_OPTIONS`…): an
 * allowed call asks first unless every name is inert (sensitiveVariables.ts `isInertEnvName`).
 */
export function withEnvRisk(decision: PolicyDecision, env: Record<string, string> | undefined): PolicyDecision {
  if (decision.decision !== 'allow' || !env) return decision;
  const names = Object.keys(env);
  const risky = names.find((name) => isCodeLoadingAssignment(`${name}=`) !== undefined);
  const other = names.find((name) => !isInertEnvName(name) || !isInertEnvValue(name, env[name]));
  // A locale in a character set where bash reads the line otherwise than the policy (localeCharset.ts).
  const charset = names.find((name) => !parsesAsUtf8(name, env[name]));
  if (risky === undefined && other === undefined && charset === undefined) return decision;
  const reason = risky !== undefined ? envRiskReason(risky) : other !== undefined ? envNotInertReason(other) : localeCharsetReason(charset as string);
  return { ...decision, decision: 'prompt', rule: null, kind: 'opaque', reason };
}

/** Why a `sandbox: "off"` call asks first (the approval dialog shows it). */
export const SANDBOX_OFF_REASON = 'it runs outside the OS sandbox (`sandbox: "off"`)';

/**
 * A call that asks to run outside the OS sandbox (`sandbox: "off"`) is at least prompt and says
 * so; deny stays deny. Nothing leaves the sandbox without a person saying yes.
 */
/** Why a `sandbox: "write"` call asks: the caller wants it to write, which an auto-approved read may not. */
export const WRITE_ASKED_REASON = 'the caller asked to run it with write access (`sandbox: "write"`)';

/** A caller that asked for write access: never auto-approved (so never read-only), at least a prompt. */
export function withWriteAsked(decision: PolicyDecision, asked: boolean | undefined): PolicyDecision {
  if (!asked || decision.decision === 'deny') return decision;
  const reason = decision.decision === 'prompt' ? `${decision.reason}; ${WRITE_ASKED_REASON}` : WRITE_ASKED_REASON;
  return { ...decision, decision: 'prompt', reason, ...(decision.decision === 'allow' ? { rule: null } : {}) };
}

export function withSandboxOff(decision: PolicyDecision, off: boolean | undefined): PolicyDecision {
  if (!off || decision.decision === 'deny') return decision;
  const reason = decision.decision === 'prompt' ? `${decision.reason}; ${SANDBOX_OFF_REASON}` : SANDBOX_OFF_REASON;
  return { ...decision, decision: 'prompt', reason, ...(decision.decision === 'allow' ? { rule: null } : {}) };
}

export type { DecidedBy } from './policyContracts';
/** Who refused it: a rule (or the default), a critical pattern, or the user. */
export type RefusedBy = 'rule' | 'critical' | 'user';

export type GateVerdict =
  | { kind: 'run'; decidedBy: DecidedBy; decision: PolicyDecision }
  | { kind: 'refuse'; by: RefusedBy; decision: PolicyDecision; message: string }
  /** The caller's signal aborted before or while the user was asked: nothing ran. */
  | { kind: 'aborted'; decision: PolicyDecision };

export interface GateRequest {
  /** The command line the policy judges (and the user reads). */
  command: string;
  /** Where it runs, as the host names it; `decide` resolves it. */
  cwd: string;
  /** Variables the command gets on top of the inherited ones. */
  env?: Record<string, string>;
  caller?: CallerInfo;
  /** The caller's description of the command, for the person asked. */
  description?: string;
  /** A prompt is answered without asking when the command runs in an active sandbox that may auto-approve. */
  sandbox?: { active: boolean; autoApprove: boolean };
  /** The caller asked to run outside the OS sandbox: at least prompt, never auto-approved. */
  sandboxOff?: boolean;
  /** The caller asked for write access (`sandbox: "write"`): at least prompt, never auto-approved. */
  writeAsked?: boolean;
  /** Said in the dialog: the sandbox runs but the read-only fence cannot, and why (ApprovalRequest). */
  readOnlyNotEnforced?: string;
}

export interface GateDeps {
  /** The policy's decision on the command text alone; the env risk is the gate's own step. */
  decide(command: string, cwd: string): PolicyDecision;
  approver: Approver;
}

/** The gate's decide step: what `explain` shows and what the gate acts on. */
export function gateDecision(decide: GateDeps['decide'], req: Pick<GateRequest, 'command' | 'cwd' | 'env' | 'sandboxOff' | 'writeAsked'>): PolicyDecision {
  return withWriteAsked(withSandboxOff(withEnvRisk(decide(req.command, req.cwd), req.env), req.sandboxOff), req.writeAsked);
}

/** Whether a decision runs without asking anyone: allowed, or a prompt the active sandbox may approve. */
export function runsWithoutAsking(decision: PolicyDecision, req: Pick<GateRequest, 'sandbox' | 'sandboxOff' | 'writeAsked'>): boolean {
  if (decision.decision === 'allow') return true;
  // A critical command always asks: inside the sandbox `rm -rf /` still empties the workspace, and a
  // write to the editor's settings would still be tried.
  if (decision.kind === 'critical') return false;
  // The managed rules could not be read: nothing is known about what an administrator forbade.
  if (decision.kind === 'unreadable_rules') return false;
  return decision.decision === 'prompt' && !req.sandboxOff && !req.writeAsked && req.sandbox?.active === true && req.sandbox.autoApprove;
}

export async function passPolicyGate(deps: GateDeps, req: GateRequest, signal?: AbortSignal): Promise<GateVerdict> {
  const decision = gateDecision((command, cwd) => deps.decide(command, cwd), req);
  if (decision.decision === 'deny') {
    const by: RefusedBy = decision.kind === 'critical' ? 'critical' : 'rule';
    return { kind: 'refuse', by, decision, message: commandDeniedMessage(decision.reason) };
  }
  if (decision.decision === 'allow') return { kind: 'run', decidedBy: 'rule', decision };
  if (runsWithoutAsking(decision, req)) return { kind: 'run', decidedBy: 'sandbox', decision };
  if (signal?.aborted) return { kind: 'aborted', decision };

  const answer = await untilAborted(
    deps.approver.approve(
      { command: req.command, cwd: req.cwd, decision, ...(req.caller ? { caller: req.caller } : {}), ...(req.description ? { description: req.description } : {}), ...(req.sandboxOff ? { sandboxOff: true } : {}), ...(req.readOnlyNotEnforced ? { readOnlyNotEnforced: req.readOnlyNotEnforced } : {}) },
      signal,
    ),
    signal,
  );
  if (answer === undefined) return { kind: 'aborted', decision };
  switch (answer.kind) {
    case 'deny':
      return { kind: 'refuse', by: 'user', decision, message: userDeniedMessage(decision.reason) };
    case 'allow':
      return { kind: 'run', decidedBy: 'user-once', decision };
    case 'session':
      return { kind: 'run', decidedBy: 'user-session', decision };
    case 'always':
      // The approver already persisted the new rules; this call proceeds like a one-time allow.
      return { kind: 'run', decidedBy: 'user-always', decision };
  }
}

/** The approver's answer, or undefined once `signal` aborts (a dialog left open must not hold the caller). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return promise;
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(signal.aborted ? undefined : value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
