// Paths in a workspace folder that make something run later, or that hold an agent's own rules:
// git hooks and config (`core.fsmonitor`, aliases), the editor's settings and tasks
// (`.vscode/settings.json` holds `agentBash.patterns`), dev containers, other agents' settings. A
// command that writes one could allow itself the next command, or run code the next time the user
// runs git; so a write there asks whatever the rules say (like a critical pattern), and the OS
// sandbox keeps them read-only (exec/sandbox/sandboxPolicy.ts).
import * as path from 'node:path';
import type { Segment } from '../policyContracts';
import { namesFile, reopensDescriptor, writesFile } from './redirectTargets';
import { specWrittenWords } from '../programs/pathWords';
import { basename } from '../analysis/shellNormalize';
import { isInside, realPath, resolvePathWord } from './workspaceScope';

/** Relative to a workspace folder; a path is protected when it is one of these or inside one. */
export const WORKSPACE_PROTECTED_PATHS = [
  '.vscode', '.git/hooks', '.git/config', '.gitmodules', '.idea', '.devcontainer', '.agent-bash', '.mcp.json', '.claude', '.cursor',
];

/** Programs whose operands are all paths they create, replace, remove or change (`mv` removes its sources). */
const WRITERS: ReadonlySet<string> = new Set([
  'mv', 'tee', 'touch', 'rm', 'rmdir', 'mkdir', 'chmod', 'chown', 'chgrp', 'truncate', 'shred', 'unlink', 'patch',
]);
/** Programs that only read their sources and write the last operand (or the `-t`/`--target-directory` one). */
const COPIERS: ReadonlySet<string> = new Set(['cp', 'install', 'rsync', 'ln', 'link']);

/** The workspace-relative protected path `resolved` falls in, or undefined. */
function protectedRel(resolved: string, roots: readonly string[]): string | undefined {
  for (const root of roots) {
    for (const base of new Set([path.resolve(root), realPath(path.resolve(root))])) {
      if (!isInside(resolved, [base])) continue;
      const rel = path.relative(base, resolved).split(path.sep).join('/');
      if (!rel.includes('/') && rel.endsWith('.code-workspace')) return rel;
      const hit = WORKSPACE_PROTECTED_PATHS.find((p) => rel === p || rel.startsWith(`${p}/`));
      if (hit) return rel;
    }
  }
  return undefined;
}

/** The words a segment writes to: its writing redirects' targets, and a writer's operands. */
function writtenWords(seg: Segment): string[] {
  const words: string[] = [];
  for (const r of seg.redirects) {
    if (!writesFile(r, seg.redirects) || r.target === undefined) continue;
    words.push(r.target);
    // `1<file >/dev/stdout` writes `file`: every file another redirection opened may be the one.
    if (reopensDescriptor(r.target)) for (const o of seg.redirects) if (o !== r && namesFile(o) && o.target !== undefined) words.push(o.target);
  }
  words.push(...specWrittenWords(seg));
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a segment may have no argv (`$(< file)`, a bare redirect)
  const program = seg.argv[0] === undefined ? '' : basename(seg.argv[0]);
  if (!WRITERS.has(program) && !COPIERS.has(program)) return words;
  const operands: string[] = [];
  const optionValues: string[] = [];
  let options = true;
  const args = seg.argv.slice(1);
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (options && word === '--') {
      options = false;
      continue;
    }
    if (options && word.startsWith('-') && word.length > 1) {
      // `--target-directory=DIR`, `-t DIR`, `-tDIR`: the value is the written folder. Any other
      // option's glued or next value counts too (for `-rf`, the harmless `f`): a word too many only asks.
      const eq = word.indexOf('=');
      if (eq > 0) optionValues.push(word.slice(eq + 1));
      else if (!word.startsWith('--') && word.length > 2) optionValues.push(word.slice(2));
      if ((word === '-t' || word === '--target-directory') && i + 1 < args.length) optionValues.push(args[++i]);
      continue;
    }
    operands.push(word);
  }
  if (WRITERS.has(program)) return [...words, ...optionValues, ...operands];
  // A copier writes its destination: the last operand, unless a target folder was given.
  return [...words, ...optionValues, ...operands.slice(-1)];
}

/**
 * The first word this segment writes that lands on a protected workspace path (directly or through
 * symlinks), as the path relative to its workspace folder; undefined when none does. The words are
 * bash's expansion of what was written (segmentExpansion.ts).
 */
export function findProtectedWrite(seg: Segment, cwd: string, roots: readonly string[]): string | undefined {
  for (const word of writtenWords(seg)) {
    const candidate = resolvePathWord(word, cwd);
    const hit = protectedRel(candidate, roots) ?? protectedRel(realPath(candidate), roots);
    if (hit !== undefined) return hit;
  }
  return undefined;
}
