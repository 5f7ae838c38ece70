// When the OS sandbox refused something a command tried, the person reads it as such — "The sandbox
// kept this command from writing /tmp/x" — and can act on it from the notification: allow writing
// there (the narrowest folder that holds the path, shown and editable first, with a warning when it is
// as broad as /tmp or the home folder) or allow the domain (added to the sandbox settings at a scope
// they pick, with Undo), or run the
// command once outside the sandbox (which asks, as the agent's own retry does).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolResult } from '../../core/contracts';
import { refusalSentence } from '../../core/humanMessages';
import { allowWriteProblem, folderToAllow, isBroadFolder } from './allowWriteFolder';

export { folderToAllow } from './allowWriteFolder';

/**
 * Short enough that three buttons fit a notification without being cut ("Allow Writing T…"); the
 * sentence above them says what was refused and where.
 */
export const REFUSAL_ACTIONS = {
  allowWrite: 'Allow Writing',
  allowDomain: 'Allow Domain',
  runOutside: 'Run Unsandboxed',
  undo: 'Undo',
  user: 'User Settings',
  workspace: 'Workspace Settings',
} as const;

/** The narrowest folder proposed for a refused path, shown and editable before it is saved; undefined: cancelled. */
async function confirmFolder(folder: string, refused: string, cwd: string): Promise<string | undefined> {
  const home = process.env.HOME ?? '';
  const broad = isBroadFolder(folder, home);
  const value = await vscode.window.showInputBox({
    title: `Agent Bash: allow sandboxed commands to write in…`,
    value: folder,
    prompt: broad
      ? `This is all of ${folder}: every sandboxed command could write anywhere in it. The narrowest folder that holds ${path.resolve(cwd, refused)}; narrow it if the command writes deeper.`
      : `The narrowest folder that holds ${path.resolve(cwd, refused)}.`,
    validateInput: (v) => allowWriteProblem(v, refused, cwd),
    ignoreFocusOut: true,
  });
  return value === undefined ? undefined : path.resolve(value.trim());
}

type Setting = 'sandbox.filesystem.allowWrite' | 'sandbox.network.allowedDomains';

/** Adds `value` to the list setting at a scope the person picks; a notification offers Undo. */
async function addToSetting(setting: Setting, value: string): Promise<void> {
  const hasWorkspace = (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
  const scope = hasWorkspace
    ? await vscode.window.showQuickPick([REFUSAL_ACTIONS.workspace, REFUSAL_ACTIONS.user], { title: `Add ${value} to agentBash.${setting} in…` })
    : REFUSAL_ACTIONS.user;
  if (!scope) return;
  const target = scope === REFUSAL_ACTIONS.user ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace;
  const config = vscode.workspace.getConfiguration('agentBash');
  const inspected = config.inspect<string[]>(setting);
  const before = (target === vscode.ConfigurationTarget.Global ? inspected?.globalValue : inspected?.workspaceValue) ?? [];
  if (before.includes(value)) return;
  await config.update(setting, [...before, value], target);
  const undo = await vscode.window.showInformationMessage(`Added ${value} to agentBash.${setting} (${scope.toLowerCase()}).`, REFUSAL_ACTIONS.undo);
  if (undo === REFUSAL_ACTIONS.undo) {
    const now = vscode.workspace.getConfiguration('agentBash').inspect<string[]>(setting);
    const current = (target === vscode.ConfigurationTarget.Global ? now?.globalValue : now?.workspaceValue) ?? [];
    const kept = current.filter((v) => v !== value);
    await vscode.workspace.getConfiguration('agentBash').update(setting, kept.length ? kept : undefined, target);
  }
}

/**
 * The notification for a result the sandbox refused part of; `runOutside` re-runs the same call with
 * `sandbox: "off"` (the policy gate asks first). Returns false when nothing was refused.
 */
export function offerRefusalActions(result: ToolResult, cwd: string, actions: { runOutside(): void; showOutput?: { label: string; run(): void } }): boolean {
  const refused = result.details.sandbox?.refused;
  if (!refused || (refused.paths.length === 0 && refused.hosts.length === 0)) return false;
  const buttons: string[] = [];
  if (refused.paths.length) buttons.push(REFUSAL_ACTIONS.allowWrite);
  if (refused.hosts.length) buttons.push(REFUSAL_ACTIONS.allowDomain);
  buttons.push(REFUSAL_ACTIONS.runOutside);
  if (actions.showOutput) buttons.push(actions.showOutput.label);
  void vscode.window.showWarningMessage(refusalSentence(refused), ...buttons).then(async (choice) => {
    if (choice === REFUSAL_ACTIONS.allowWrite) {
      const seen = new Set<string>();
      for (const x of refused.paths) {
        const folder = folderToAllow(x, cwd);
        if (seen.has(folder)) continue;
        seen.add(folder);
        const chosen = await confirmFolder(folder, x, cwd);
        if (chosen !== undefined) await addToSetting('sandbox.filesystem.allowWrite', chosen);
      }
    } else if (choice === REFUSAL_ACTIONS.allowDomain) {
      for (const h of refused.hosts) await addToSetting('sandbox.network.allowedDomains', h);
    } else if (choice === REFUSAL_ACTIONS.runOutside) {
      actions.runOutside();
    } else if (choice !== undefined && choice === actions.showOutput?.label) {
      actions.showOutput.run();
    }
  });
  return true;
}
