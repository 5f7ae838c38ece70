// Where git itself says a repository's metadata lives: its git dir and common dir. Asked of git, never
// parsed here (a `gitdir:` keeps trailing spaces, a `commondir` is relative to its git dir…), by the
// plan before a command (protectedMounts.ts: what a pointer leads to is protected) and by the look
// after it (newRepoQuarantine.ts: what a new one leads to is checked).
import { spawnSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import * as path from 'node:path';
import { hostProgram } from '../../hostPrograms';

export interface GitLocations {
  gitDir: string;
  commonDir: string;
}

/**
 * Where git itself says the repository of `entry` lives: its git dir and common dir (absolute).
 * A `.git` entry is found as git finds it from its folder (never above it); any other path is
 * taken as a git dir (`GIT_DIR`). Asked with no system, global or user config and `safe.directory`
 * open (`rev-parse` runs no program of the repository's). Undefined when git says it is no
 * repository (or there is no git): then the caller decides as if in doubt.
 */
export function gitLocations(entry: string): GitLocations | undefined {
  const git = hostProgram('git');
  if (git === undefined) return undefined;
  const dotGit = path.basename(entry) === '.git';
  const cwd = dotGit ? path.dirname(entry) : '/';
  const env: Record<string, string> = { PATH: '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: '/nonexistent', GIT_TERMINAL_PROMPT: '0' };
  if (dotGit) env.GIT_CEILING_DIRECTORIES = path.dirname(cwd);
  else env.GIT_DIR = entry;
  const r = spawnSync(git, ['-c', 'safe.directory=*', 'rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir'], { cwd, env, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
  if (r.status !== 0 || typeof r.stdout !== 'string') return undefined;
  const [gitDir, commonDir] = r.stdout.split('\n');
  if (!gitDir || !commonDir || !path.isAbsolute(gitDir) || !path.isAbsolute(commonDir)) return undefined;
  return { gitDir, commonDir };
}

function stateOf(p: string): string {
  try {
    const st = lstatSync(p);
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return '-';
  }
}

const cache = new Map<string, { key: string; where: GitLocations }>();
const MAX_CACHE = 2000;

/**
 * `gitLocations`, kept while what it depends on stays the same (the entry, its `commondir`, and the
 * git dir, its `commondir` and the common dir it led to). An answer of no repository is never kept:
 * a target made later is asked about again. `budget.spawns` counts the questions asked (past zero:
 * `over`, and nothing more is asked).
 */
export function cachedGitLocations(entry: string, budget: { spawns: number; over: boolean }): GitLocations | undefined {
  const keyOf = (where: GitLocations | undefined): string =>
    [entry, path.join(entry, 'commondir'), ...(where ? [where.gitDir, path.join(where.gitDir, 'commondir'), where.commonDir] : [])].map(stateOf).join('|');
  const cached = cache.get(entry);
  if (cached && cached.key === keyOf(cached.where)) return cached.where;
  if (budget.spawns <= 0) {
    budget.over = true;
    return undefined;
  }
  budget.spawns--;
  const where = gitLocations(entry);
  if (where === undefined) {
    cache.delete(entry);
    return undefined;
  }
  if (cache.size >= MAX_CACHE) cache.clear();
  cache.set(entry, { key: keyOf(where), where });
  return where;
}
