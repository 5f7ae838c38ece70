// After "Always allow…": a notification that names the saved rules and where they went, with Undo
// (which removes exactly those rules) and Open Settings.
import * as vscode from 'vscode';
import { plainNotice } from '../../core/humanMessages';
import { savedRulesMessage, undoneRulesMessage, UNDO, type SavedRules } from '../approvals/approvalDialog';

export const OPEN_SETTINGS = 'Open Settings';

export function announceSavedRules(saved: SavedRules, undo: () => Promise<void>): void {
  const buttons = saved.rules.length ? [UNDO, OPEN_SETTINGS] : [OPEN_SETTINGS];
  void vscode.window.showInformationMessage(plainNotice(savedRulesMessage(saved)), ...buttons).then(async (choice) => {
    if (choice === UNDO) {
      await undo();
      void vscode.window.showInformationMessage(plainNotice(undoneRulesMessage(saved)));
    } else if (choice === OPEN_SETTINGS) {
      await vscode.commands.executeCommand(
        saved.scope === 'workspace' ? 'workbench.action.openWorkspaceSettingsFile' : 'workbench.action.openSettingsJson',
      );
    }
  });
}
