// A status-bar item while agent commands run somewhere other than the workspace folder (after a bang
// `cd`): it shows the directory; clicking it moves them back.
import path from 'node:path';
import * as vscode from 'vscode';
import type { SessionCwd } from './sessionCwd';

export const RESET_SESSION_DIR_COMMAND = 'agentBash.resetSessionDirectory';

export function sessionDirText(dir: string, home: string): string {
  return `$(folder-opened) Agent Bash: ${shortPath(dir, home)}`;
}
export function sessionDirTooltip(dir: string, home: string): string {
  return `Agent commands without a cwd run in ${dir} (moved by your \`cd\`). Click to move them back to ${home}.`;
}
export function resetMessage(home: string): string {
  return `Agent Bash: agent commands run in the workspace folder again (${home}).`;
}

export class SessionCwdStatus implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem('agentBash.sessionDirectory', vscode.StatusBarAlignment.Left, 10);
  private readonly unsubscribe: () => void;
  private readonly command: vscode.Disposable;
  /** Whether the item is on the status bar (VS Code has no getter for it). */
  shown = false;

  constructor(private readonly cwd: SessionCwd) {
    this.item.name = 'Agent Bash: agent directory';
    this.item.command = RESET_SESSION_DIR_COMMAND;
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.unsubscribe = cwd.onDidChange(() => this.refresh());
    this.command = vscode.commands.registerCommand(RESET_SESSION_DIR_COMMAND, () => {
      this.cwd.reset();
      void vscode.window.showInformationMessage(resetMessage(this.cwd.home()));
    });
    this.refresh();
  }

  refresh(): void {
    const dir = this.cwd.get();
    const home = this.cwd.home();
    if (path.resolve(dir) === path.resolve(home)) {
      this.item.hide();
      this.shown = false;
      return;
    }
    this.item.text = sessionDirText(dir, home);
    this.item.tooltip = sessionDirTooltip(dir, home);
    this.item.show();
    this.shown = true;
  }

  dispose(): void {
    this.unsubscribe();
    this.command.dispose();
    this.item.dispose();
  }
}

/** Relative to the workspace folder when inside it, else with `~` for the home directory. */
function shortPath(dir: string, home: string): string {
  const rel = path.relative(home, dir);
  if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  const user = process.env.HOME;
  return user && (dir === user || dir.startsWith(`${user}/`)) ? `~${dir.slice(user.length)}` : dir;
}
