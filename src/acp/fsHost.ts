// `fs/read_text_file` and `fs/write_text_file` through the workspace's documents: an open editor's
// unsaved text is what the agent reads (it is what the user sees), and a write to an open document goes
// through an edit plus save so the editor, its undo stack and the disk agree. Other files use
// `workspace.fs`, which also reaches remote workspaces.
import { RequestError } from '@agentclientprotocol/sdk';
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isInside } from '../core/policy/workspaceScope';

/** JSON-RPC error code for a file access the user refused (ACP assigns none). */
export const FS_DENIED_CODE = -32001;

export function fsDeniedMessage(kind: 'read' | 'write', p: string): string {
  return `Denied: ${kind === 'read' ? 'reading' : 'writing'} ${p} (outside the workspace) was not approved by the user`;
}

/**
 * Files outside the workspace folders need the user's yes, read or write: the bash policy asks for
 * `cat`/`cp` of an outside path too, and fs/* must not be the way around it.
 */
export interface FsGuard {
  roots(): string[];
  confirm(kind: 'read' | 'write', p: string): Promise<boolean>;
}

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
  constructor(private readonly guard?: FsGuard) {}

  async readTextFile(p: string, line?: number | null, limit?: number | null): Promise<string> {
    const uri = fileUri(p);
    await this.check('read', p);
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
    await this.check('write', p);
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

  private async check(kind: 'read' | 'write', p: string): Promise<void> {
    if (!this.guard) return;
    const roots = this.guard.roots().map(realOrResolved);
    if (isInside(realOrResolved(p), roots)) return;
    if (!(await this.guard.confirm(kind, p))) throw new RequestError(FS_DENIED_CODE, fsDeniedMessage(kind, p), { path: p });
  }
}

/** The real path (symlinks followed) of `p`, or of its nearest existing parent joined with the rest. */
function realOrResolved(p: string): string {
  const resolved = path.resolve(p);
  let dir = resolved;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(dir), ...rest);
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return resolved;
      rest.unshift(path.basename(dir));
      dir = parent;
    }
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
