import * as vscode from 'vscode';
import { VsCodeTerminalBridge } from './vscode/terminalBridge';
import { resolveShell } from './vscode/shellSettings';
import { exitLine } from './vscode/bridgeTerminal';
import type { CreateTerminalParams, TerminalHandle } from './core/contracts';

export interface AgentBashApi {
  createTerminal(params: CreateTerminalParams): Promise<TerminalHandle>;
}

export function activate(context: vscode.ExtensionContext): AgentBashApi {
  const workspaceCwd = () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
  const bridge = new VsCodeTerminalBridge({
    shell: () => resolveShell({}),
    baseEnv: () => process.env,
    defaultCwd: workspaceCwd,
  });
  context.subscriptions.push(bridge);

  context.subscriptions.push(
    vscode.commands.registerCommand('agentBash.run', async (commandArg?: string) => {
      const command =
        typeof commandArg === 'string'
          ? commandArg
          : await vscode.window.showInputBox({ prompt: 'Command to run', placeHolder: 'npm test' });
      if (!command) return undefined;
      const term = await bridge.createTerminal({ command, cwd: workspaceCwd() });
      const status = await term.waitForExit();
      void vscode.window.showInformationMessage(`Agent Bash: \`${command}\` ${exitLine(status)}`);
      return status;
    }),
  );

  return { createTerminal: (params) => bridge.createTerminal(params) };
}

export function deactivate(): void {}
