// `fs/read_text_file` and `fs/write_text_file`: the protocol half. Paths must be absolute, files outside
// the workspace folders need the user's yes, and every refusal is a JSON-RPC error. Where the text lives
// (an open editor, the disk, a remote workspace) is the document store's business (vscode/acp/workspaceDocuments.ts).
import { RequestError } from '@agentclientprotocol/sdk';
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../core/policy/checks/workspaceScope';

/** JSON-RPC error code for a file access the user refused (ACP assigns none). */
export const FS_DENIED_CODE = -32001;
export const FILE_NOT_FOUND_CODE = -32002;
export const EDIT_REFUSED_MESSAGE = 'the editor refused the edit';

export function fsDeniedMessage(kind: 'read' | 'write', p: string): string {
  return `Denied: ${kind === 'read' ? 'reading' : 'writing'} ${p} (outside the workspace) was not approved by the user`;
}
export function notAbsoluteMessage(p: string): string {
  return `Path must be absolute: ${p}`;
}
export function fileNotFoundMessage(p: string): string {
  return `File not found: ${p}`;
}

/**
 * Files outside the workspace folders need the user's yes, read or write: the bash policy asks for
 * `cat`/`cp` of an outside path too, and fs/* must not be the way around it.
 */
export interface FsGuard {
  roots(): string[];
  confirm(kind: 'read' | 'write', p: string): Promise<boolean>;
}

/** Where text files are read and written; `p` is always absolute. */
export interface DocumentStore {
  /** The text the user sees (an open editor's unsaved text first), or undefined when the file does not exist. */
  read(p: string): Promise<string | undefined>;
  /** Writes `content`; false when an open editor refused the edit. */
  write(p: string, content: string): Promise<boolean>;
  /** A URI for error data (`file:///…`). */
  uriOf(p: string): string;
}

export interface FsHostLike {
  readTextFile(p: string, line?: number | null, limit?: number | null): Promise<string>;
  writeTextFile(p: string, content: string): Promise<void>;
}

export class AcpFsHost implements FsHostLike {
  constructor(
    private readonly store: DocumentStore,
    private readonly guard?: FsGuard,
  ) {}

  async readTextFile(p: string, line?: number | null, limit?: number | null): Promise<string> {
    requireAbsolute(p);
    await this.check('read', p);
    const text = await this.store.read(p);
    if (text === undefined) throw new RequestError(FILE_NOT_FOUND_CODE, fileNotFoundMessage(p), { uri: this.store.uriOf(p) });
    return sliceLines(text, line, limit);
  }

  async writeTextFile(p: string, content: string): Promise<void> {
    requireAbsolute(p);
    await this.check('write', p);
    if (!(await this.store.write(p, content))) throw RequestError.internalError({ path: p }, EDIT_REFUSED_MESSAGE);
  }

  private async check(kind: 'read' | 'write', p: string): Promise<void> {
    if (!this.guard) return;
    const roots = this.guard.roots().map(realOrResolved);
    if (isInside(realOrResolved(p), roots)) return;
    if (!(await this.guard.confirm(kind, p))) throw new RequestError(FS_DENIED_CODE, fsDeniedMessage(kind, p), { path: p });
  }
}

function requireAbsolute(p: string): void {
  if (!path.isAbsolute(p)) throw RequestError.invalidParams({ path: p }, notAbsoluteMessage(p));
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
