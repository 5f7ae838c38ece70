// Room vscode/sandbox/: the OS sandbox in the workbench (status item, refusal notifications and actions).
// The OS sandbox in the workbench: a status-bar item that says whether agent commands run sandboxed
// (and why not, when they do not), the one-time warning when `auto` falls back to running without
// it, and the one-click command that allows the package registries.
import * as vscode from 'vscode';
import type { SandboxRuntime } from '../../exec/sandbox/sandboxRuntime';
import { PACKAGE_REGISTRY_DOMAINS } from '../../exec/sandbox/sandboxPolicy';
import type { SettingsStore } from '../settings/settings';

export const ALLOW_REGISTRIES_COMMAND = 'agentBash.sandbox.allowPackageRegistries';

export class SandboxStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('agentBash.sandbox', vscode.StatusBarAlignment.Left, 10);
  private readonly subs: vscode.Disposable[];

  constructor(
    private readonly runtime: SandboxRuntime,
    private readonly settings: SettingsStore,
  ) {
    this.item.name = 'Agent Bash Sandbox';
    this.item.command = { title: 'Sandbox settings', command: 'workbench.action.openSettings', arguments: ['agentBash.sandbox'] };
    this.subs = [
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('agentBash.sandbox')) this.update();
      }),
      vscode.commands.registerCommand(ALLOW_REGISTRIES_COMMAND, async () => {
        await this.settings.allowDomains(PACKAGE_REGISTRY_DOMAINS);
        void vscode.window.showInformationMessage(`Agent Bash: sandboxed commands may now reach ${PACKAGE_REGISTRY_DOMAINS.join(', ')}.`);
      }),
    ];
    // The first probe starts bwrap once (cached after): off the activation path.
    const first = setImmediate(() => {
      this.update();
      this.item.show();
    });
    this.subs.push({ dispose: () => clearImmediate(first) });
  }

  /** `auto` without a usable sandbox: said once, and the status bar keeps saying it. */
  warnFallback(message: string): void {
    this.update();
    void vscode.window.showWarningMessage(message);
  }

  private update(): void {
    const mode = this.settings.sandbox().enabled;
    const support = this.runtime.support();
    if (mode === 'off') {
      this.set('$(unlock) Sandbox off', 'Agent Bash runs agent commands without the OS sandbox (agentBash.sandbox.enabled is "off").');
    } else if (support.sandbox) {
      this.set('$(shield) Sandboxed', 'Agent Bash runs agent commands in the OS sandbox (bubblewrap).');
    } else if (mode === 'on') {
      this.set('$(error) Sandbox unavailable', `Agent commands are refused: ${support.problem ?? 'the sandbox cannot start'}.`, true);
    } else {
      this.set('$(warning) No sandbox', `Agent commands run without the OS sandbox: ${support.problem ?? 'it cannot start here'}.`, true);
    }
  }

  private set(text: string, tooltip: string, warn = false): void {
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
    for (const s of this.subs) s.dispose();
  }
}
