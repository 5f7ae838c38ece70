// The rule layers as VS Code settings hold them, read per scope with inspect() (never the merged
// get()), for the Manage Rules view. A stand-in with the shared reader's shape (RuleLayer[]): swap
// `readSettingsRuleLayers` for the policy's own layer reader once there is one; the managed file is
// that reader's to add.
import path from 'node:path';
import * as vscode from 'vscode';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from '../core/policy/builtinRules';
import type { PolicyRule, RuleLayer } from '../core/policy/policyContracts';
import { parsePolicyRules } from '../core/policy/policyRulesSchema';

const SECTION = 'agentBash';

function validRules(value: unknown): PolicyRule[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown) => {
    const parsed = parsePolicyRules([entry]);
    return parsed.ok ? parsed.rules : [];
  });
}

/** Where the workspace layer is written: `.vscode/settings.json` of the folder, or the workspace file. */
export function workspaceSettingsPath(): string | undefined {
  const file = vscode.workspace.workspaceFile;
  if (file?.scheme === 'file') return file.fsPath;
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? path.join(folder.uri.fsPath, '.vscode', 'settings.json') : undefined;
}

/** Built-in, user, workspace (trusted workspaces only) and, in a multi-root workspace, each folder's. */
export function readSettingsRuleLayers(): RuleLayer[] {
  const config = vscode.workspace.getConfiguration(SECTION);
  const layers: RuleLayer[] = [];
  if (config.get<boolean>('builtinRules') !== false) layers.push({ layer: 'builtin', source: BUILTIN_LAYER_SOURCE, rules: [...BUILTIN_RULES] });
  const inspected = config.inspect<unknown>('patterns');
  layers.push({ layer: 'user', source: 'user settings', rules: validRules(inspected?.globalValue) });
  if (!vscode.workspace.isTrusted) return layers;
  if (vscode.workspace.workspaceFolders?.length) {
    layers.push({ layer: 'workspace', source: workspaceSettingsPath() ?? 'workspace settings', rules: validRules(inspected?.workspaceValue) });
  }
  // In a single-folder window the folder's settings are the workspace's: only a multi-root workspace has folder layers.
  if (vscode.workspace.workspaceFile) {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const value = vscode.workspace.getConfiguration(SECTION, folder.uri).inspect<unknown>('patterns')?.workspaceFolderValue;
      layers.push({ layer: 'folder', source: folder.name, rules: validRules(value) });
    }
  }
  return layers;
}
