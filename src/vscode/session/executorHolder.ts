// Room vscode/session/: the session's executor and working directory.
// One LocalExecutor for the session whose shell follows the settings: when `agentBash.shell.*`
// changes, the next call gets a fresh executor and the old one is disposed (its
// persistent shells killed), so changes apply without a reload.
import type { ExecRequest, ExecResult, LocalExecutor } from '../../core/contracts';
import { LocalShellExecutor } from '../../exec/localExecutor';
import type { SandboxRuntime } from '../../exec/sandbox/sandboxRuntime';
import type { LoginEnvironment } from '../../exec/loginEnvironment';
import type { SettingsStore } from '../settings/settings';

export class ExecutorHolder {
  private current: { key: string; executor: LocalShellExecutor } | undefined;
  private readonly retired = new Set<Promise<void>>();

  constructor(
    private readonly settings: SettingsStore,
    private readonly baseEnv: () => NodeJS.ProcessEnv,
    private readonly sandbox?: SandboxRuntime,
    /** The window's one login environment: used where `agentBash.shell.args` asks for a login shell. */
    private readonly loginEnv?: LoginEnvironment,
  ) {}

  /** A stable executor object that always delegates to the one matching the current settings. */
  readonly executor: LocalExecutor = {
    run: (req: ExecRequest): Promise<ExecResult> => this.get().run(req),
    warm: (req) => this.get().warm(req),
    dispose: () => this.dispose(),
  };

  get(): LocalShellExecutor {
    const s = this.settings.current();
    // A sandbox setting change also starts fresh shells: a persistent shell keeps the mounts it started with.
    const key = JSON.stringify([s.shell.path ?? '', s.shell.args ?? [], this.settings.sandbox()]);
    if (this.current?.key !== key) {
      if (this.current) {
        const done = this.current.executor.dispose().finally(() => this.retired.delete(done));
        this.retired.add(done);
      }
      this.current = {
        key,
        executor: new LocalShellExecutor({
          ...(s.shell.path ? { shellPath: s.shell.path } : {}),
          // The extension host's environment is already the user's login environment; a login shell
          // per command would only re-run profiles (slow, and a stuck profile would hang every call).
          shellArgs: s.shell.args ?? ['-c'],
          baseEnv: this.baseEnv(),
          ...(this.sandbox ? { sandbox: this.sandbox } : {}),
          ...(this.loginEnv ? { loginEnv: this.loginEnv } : {}),
        }),
      };
    }
    return this.current.executor;
  }

  async dispose(): Promise<void> {
    const cur = this.current;
    this.current = undefined;
    await Promise.allSettled([cur?.executor.dispose(), ...this.retired]);
  }
}
