// `fs/read_text_file` and `fs/write_text_file` through the workspace's documents: an open editor's
// unsaved text is what the agent reads (it is what the user sees), and a write to an open document goes
// through an edit plus save so the editor, its undo stack and the disk agree. Other files use
// `workspace.fs`, which also reaches remote workspaces.
import { RequestError } from '@agentclientprotocol/sdk';
import * as path from 'node:path';
import * as vscode from 'vscode';

export function notAbsoluteMessage(p: string): string {
  return `Path must be absolute: ${p}`;
}
export function fileNotFoundMessage(p: string): string {
  return `File not found: ${p}`;
}

export interface FsHostLike {
  readTextFile(p: string, line?: number | null, limit?: number | null): Promise<string>;
  writeTextFile(p: string, content: string): Promise<void>;
}

export class WorkspaceFsHost implements FsHostLike {
  async readTextFile(p: string, line?: number | null, limit?: number | null): Promise<string> {
    const uri = fileUri(p);
    const open = openDocument(uri);
    let text: string;
    if (open) {
      text = open.getText();
    } else {
      try {
        text = new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
      } catch (err) {
        if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') {
          throw new RequestError(-32002, fileNotFoundMessage(p), { uri: uri.toString() });
        }
        throw err;
      }
    }
    return sliceLines(text, line, limit);
  }

  async writeTextFile(p: string, content: string): Promise<void> {
    const uri = fileUri(p);
    const open = openDocument(uri);
    if (!open) {
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(content));
      return;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(open.positionAt(0), open.positionAt(open.getText().length)), content);
    if (!(await vscode.workspace.applyEdit(edit))) throw RequestError.internalError({ path: p }, 'the editor refused the edit');
    await open.save();
  }
}

/** `line` is 1-based; `limit` counts lines from there. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if ((line === undefined || line === null) && (limit === undefined || limit === null)) return text;
  const lines = text.split('\n');
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit === undefined || limit === null ? lines.length : start + Math.max(0, limit);
  return lines.slice(start, end).join('\n');
}

function fileUri(p: string): vscode.Uri {
  if (!path.isAbsolute(p)) throw RequestError.invalidParams({ path: p }, notAbsoluteMessage(p));
  return vscode.Uri.file(p);
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.toString() === uri.toString());
}
