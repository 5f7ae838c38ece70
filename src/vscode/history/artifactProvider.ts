// Artifacts (full outputs spilled to disk) open as read-only virtual documents:
// `agent-bash-artifact:/<id>/<command · time>.log` (or `/<id>.log` when the command is not known),
// and history entries' outputs under `/history/`.
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { ArtifactStore } from '../../core/contracts';

export const ARTIFACT_SCHEME = 'agent-bash-artifact';

/** `title`: what the tab shows (outputTitle); without it the tab shows the id. */
export function artifactUri(id: string, title?: string): vscode.Uri {
  return vscode.Uri.from({ scheme: ARTIFACT_SCHEME, path: title ? `/${id}/${title}.log` : `/${id}.log` });
}

export function artifactIdOf(uri: vscode.Uri): string {
  return uri.path.replace(/^\//, '').split('/')[0].replace(/\.log$/, '');
}

export class ArtifactContentProvider implements vscode.TextDocumentContentProvider {
  constructor(
    private readonly store: ArtifactStore,
    /** Renders `/history/<id>.log` documents (see outputDocument.ts). */
    private readonly history?: (uri: vscode.Uri) => Promise<string> | undefined,
  ) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const fromHistory = this.history?.(uri);
    if (fromHistory) return fromHistory;
    const id = artifactIdOf(uri);
    const file = this.store.pathOf(id);
    if (!file) return `Unknown artifact: ${id}`;
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      return `Artifact ${id} cannot be read: ${(err as Error).message}`;
    }
  }
}

export async function openArtifact(id: string, title?: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(artifactUri(id, title));
  return vscode.window.showTextDocument(doc, { preview: true });
}
