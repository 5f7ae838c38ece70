// Shared helpers for the suites that run inside the VS Code extension host.
import * as vscode from 'vscode';
import type { AgentBashApi } from '../../src/extension';

export const EXTENSION_ID = 'agent-bash.agent-bash';

export async function activateApi(): Promise<AgentBashApi> {
  const ext = vscode.extensions.getExtension<AgentBashApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  return ext.activate();
}

export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder open');
  return folder.uri.fsPath;
}

/** True while a process with this pid exists (signal 0 probes without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
