// Pipeline stage 7 (docs/ARCHITECTURE.md, Pipeline): the working directory a command runs in, resolved
// against the session cwd and checked.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolError } from './errors';

/** Schemes that name things only a protocol handler can open; a cwd still carrying one is a mistake. */
export const INTERNAL_CWD_SCHEMES = [
  'agent',
  'artifact',
  'skill',
  'rule',
  'plan',
  'memory',
  'security',
  'local',
  'mcp',
  'ssh',
  'vault',
] as const;

export function cwdMissingMessage(abs: string): string {
  return `Working directory does not exist: ${abs}`;
}
export function cwdNotDirectoryMessage(abs: string): string {
  return `Working directory is not a directory: ${abs}`;
}
export function cwdTooLongMessage(abs: string): string {
  const shown = abs.length > 80 ? `${abs.slice(0, 60)}…${abs.slice(-20)}` : abs;
  return `Working directory path is too long (${Buffer.byteLength(abs)} bytes; a path may have 4095 bytes and each name in it 255): ${shown}`;
}
export function cwdInternalSchemeMessage(cwd: string, scheme: string): string {
  return `Path "${cwd}" uses internal scheme "${scheme}://" and must be resolved through the proper protocol handler, not as a filesystem path.`;
}

// Unicode space separators models sometimes paste instead of ASCII spaces (NBSP, narrow NBSP, …).
const UNICODE_SPACES = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * The absolute path for `cwd` (undefined → the session cwd), without touching the filesystem.
 * Throws ToolError when the value still uses an internal scheme. Unlike oh-my-pi, a path made only
 * of `/` means the root directory: silently running in the session cwd would surprise the model.
 */
export function resolveCwdPath(cwd: string | undefined, sessionCwd: string, home: string = os.homedir()): string {
  if (cwd === undefined || cwd.trim() === '') return path.resolve(sessionCwd);
  let p = cwd.trim().replace(UNICODE_SPACES, ' ');
  if (p.startsWith('local:/') && !p.startsWith('local://')) p = `local://${p.slice('local:/'.length)}`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(p)?.[1]?.toLowerCase();
  if (scheme === 'file') {
    p = fileURLToPath(p);
  } else if (scheme !== undefined && (INTERNAL_CWD_SCHEMES as readonly string[]).includes(scheme)) {
    throw new ToolError(cwdInternalSchemeMessage(cwd, scheme));
  }
  if (p === '~') p = home;
  else if (p.startsWith('~/')) p = path.join(home, p.slice(2));
  return path.resolve(sessionCwd, p);
}

/**
 * Resolves `cwd` and checks that it is an existing directory. Returns the absolute path. One stat,
 * made synchronously: in the editor's extension host the thread pool behind an asynchronous stat is
 * shared with everything else there, and the wait for it was 16-50 ms of every command's latency.
 */
export async function resolveCwd(cwd: string | undefined, sessionCwd: string, home?: string): Promise<string> {
  const abs = resolveCwdPath(cwd, sessionCwd, home);
  let stat;
  try {
    stat = fs.statSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: a parent component is a file, so the directory does not exist either.
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolError(cwdMissingMessage(abs));
    if (code === 'ENAMETOOLONG') throw new ToolError(cwdTooLongMessage(abs));
    throw new ToolError(`Working directory ${abs}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!stat.isDirectory()) throw new ToolError(cwdNotDirectoryMessage(abs));
  return abs;
}
