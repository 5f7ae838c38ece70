// What every CLI command that runs commands (`run`, `mcp`) sets up the same way: the sweep of what
// earlier SIGKILLed CLIs left, the OS sandbox from the command line's options, the environment marks
// that let a later sweep find this process's children, and the two executors; and the one teardown
// (executors, then whatever still carries this session's mark, then the sandbox).
import type { PolicyRule } from '../core/policy/policyContracts';
import { programsDeniedByRules } from '../exec/sandbox/mounts/denyMasks';
import { LocalShellExecutor } from '../exec/localExecutor';
import { LoginEnvironment } from '../exec/loginEnvironment';
import { getShellConfig } from '../exec/shellConfig';
import { NodePtyExecutor } from '../exec/ptyExecutor';
import { killByEnv } from '../exec/processTree';
import { killOrphans, ownerMark, OWNER_ENV } from '../exec/sandbox/cleanup/orphanSweep';
import type { SandboxSettings } from '../exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../exec/sandbox/sandboxRuntime';
import { sweepStaleTempDirs } from '../exec/sandbox/cleanup/tempSweep';

/** Marks every process a CLI starts with its session (the env-mark sweep's key). */
export const CLI_SESSION_ENV = 'AGENT_BASH_SESSION';

export interface CliProcesses {
  sandbox: SandboxRuntime;
  executor: LocalShellExecutor;
  pty: NodePtyExecutor;
  /** Ends every shell and command, sweeps what escaped them, removes the sandbox's files. */
  dispose(): Promise<void>;
}

export function startCliProcesses(opts: { subcommand: string; sessionId: string; sandbox: SandboxSettings; cwd: string; rules?: readonly PolicyRule[] }): CliProcesses {
  // What earlier CLI processes left when they were SIGKILLed where no PID namespace held them.
  killOrphans();
  // And the temp folders they left (off the start path: nothing waits for it).
  void sweepStaleTempDirs();
  const sandbox = new SandboxRuntime({
    settings: () => opts.sandbox,
    workspaceRoots: () => [opts.cwd],
    maskedPrograms: () => programsDeniedByRules(opts.rules ?? []),
    onFallback: (message) => process.stderr.write(`agent-bash ${opts.subcommand}: ${message}\n`),
  });
  // Marks for the sweep below and for `killOrphans` of a later CLI, should this one be SIGKILLed.
  const baseEnv = { ...process.env, [CLI_SESSION_ENV]: opts.sessionId, [OWNER_ENV]: ownerMark() };
  // The login profile runs once for this process (loginEnvironment.ts; never cached on disk, where a
  // sandboxed command could read or forge it); every shell then starts without `-l`.
  const loginEnv = new LoginEnvironment({
    env: process.env,
    // The stdio server's stderr is its log; a `run` result carries the notice itself.
    ...(opts.subcommand === 'mcp' ? { onNotice: (message: string) => process.stderr.write(`agent-bash ${opts.subcommand}: ${message}\n`) } : {}),
  });
  // Started now, while the policy decides: the first command finds it done or under way.
  void loginEnv.start(getShellConfig({ env: baseEnv }), { keepNotice: true }).catch(() => undefined);
  const executor = new LocalShellExecutor({ baseEnv, sandbox, loginEnv });
  const pty = new NodePtyExecutor({ baseEnv, sandbox, loginEnv });
  return {
    sandbox,
    executor,
    pty,
    async dispose() {
      await Promise.allSettled([executor.dispose(), pty.dispose(), loginEnv.dispose()]);
      // Escapees that left the group (only possible without a PID namespace) still carry the mark.
      killByEnv(CLI_SESSION_ENV, opts.sessionId);
      sandbox.dispose();
    },
  };
}
