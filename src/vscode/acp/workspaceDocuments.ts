// The ACP fs host's document store in VS Code: an open editor's unsaved text is what the agent reads
// (it is what the user sees), and a write to an open document goes through an edit plus save so the
// editor, its undo stack and the disk agree. Other files use `workspace.fs`, which also reaches remote
// workspaces.
import * as vscode from 'vscode';
import type { DocumentStore } from '../../acp/fsHost';

export class WorkspaceDocuments implements DocumentStore {
  async read(p: string): Promise<string | undefined> {
    const uri = vscode.Uri.file(p);
    const open = openDocument(uri);
    if (open) return open.getText();
    try {
      return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
    } catch (err) {
      if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') return undefined;
      throw err;
    }
  }

  async write(p: string, content: string): Promise<boolean> {
    const uri = vscode.Uri.file(p);
    const open = openDocument(uri);
    if (!open) {
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(content));
      return true;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(open.positionAt(0), open.positionAt(open.getText().length)), content);
    if (!(await vscode.workspace.applyEdit(edit))) return false;
    await open.save();
    return true;
  }

  uriOf(p: string): string {
    return vscode.Uri.file(p).toString();
  }
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.toString() === uri.toString());
}
