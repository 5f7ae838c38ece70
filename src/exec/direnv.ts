// direnv preflight (§6.6): a project's `.envrc` (PATH additions, tool versions) applied to the
// agent's commands the way the user's own terminal would apply it. direnv's allow list still rules:
// an `.envrc` the user never allowed is never executed, because `direnv export` refuses it.
import type { ChildProcess } from 'node:child_process';
import { findOnPath } from './shellConfig';
import { killProcessTree, spawnInGroup } from './processTree';

export type DirenvMode = 'auto' | 'off';

/** `bash.direnvLoadTimeoutMs`. */
export const DIRENV_LOAD_TIMEOUT_MS = 30_000;

/** Names that may appear in `unset -v …` without quoting. */
const UNSETTABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What `direnv export json` reports: a value to set, or null to unset. */
export type DirenvDiff = Record<string, string | null>;

/** The load budget: the full 30 s, or less when a positive caller timeout is shorter. */
export function direnvBudgetMs(timeoutMs: number | undefined, budgetMs = DIRENV_LOAD_TIMEOUT_MS): number {
  return timeoutMs !== undefined && timeoutMs > 0 ? Math.min(budgetMs, timeoutMs) : budgetMs;
}

let cachedLookup: { path: string; found: string | undefined } | undefined;

/** `direnv` on PATH (cached per PATH value, so calls without direnv cost one string compare). */
export function findDirenv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const pathValue = env.PATH ?? '';
  if (cachedLookup?.path !== pathValue) cachedLookup = { path: pathValue, found: findOnPath('direnv', env) };
  return cachedLookup.found;
}

/**
 * Runs `direnv export json` in `cwd`, bounded by `budgetMs` (the process group is killed past it).
 * Undefined when direnv fails, times out, or has nothing to say (no `.envrc`, or not allowed).
 */
export function loadDirenvDiff(
  direnvPath: string,
  cwd: string,
  env: Record<string, string>,
  budgetMs: number,
): Promise<DirenvDiff | undefined> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      // DIRENV_LOG_FORMAT='' silences the "direnv: loading" chatter on stderr we don't read anyway.
      child = spawnInGroup(direnvPath, ['export', 'json'], {
        cwd,
        env: { ...env, DIRENV_LOG_FORMAT: '' },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void killProcessTree(child);
    }, budgetMs);
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      if (!ok || timedOut) return resolve(undefined);
      resolve(parseDiff(Buffer.concat(chunks).toString('utf8')));
    };
    child.once('error', () => done(false));
    child.once('close', (code) => done(code === 0));
  });
}

function parseDiff(text: string): DirenvDiff | undefined {
  if (text.trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const diff: DirenvDiff = {};
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof value === 'string' || value === null) diff[key] = value;
    }
    return diff;
  } catch {
    return undefined;
  }
}

/**
 * Merges a diff under the caller's env (`{...set, ...caller}`: the caller wins) and turns unsets
 * the caller does not re-supply into an `unset -v A B; ` prefix on the command.
 */
export function mergeDirenv(
  command: string,
  callerEnv: Record<string, string> | undefined,
  diff: DirenvDiff,
): { command: string; env: Record<string, string> } {
  const set: Record<string, string> = {};
  const unset: string[] = [];
  for (const [key, value] of Object.entries(diff)) {
    if (value !== null) set[key] = value;
    else if (!(callerEnv && key in callerEnv) && UNSETTABLE.test(key)) unset.push(key);
  }
  const env = { ...set, ...(callerEnv ?? {}) };
  return { command: unset.length > 0 ? `unset -v ${unset.join(' ')}; ${command}` : command, env };
}

export interface DirenvPreflightInput {
  mode: DirenvMode;
  command: string;
  cwd: string;
  /** The caller's env overrides. */
  env?: Record<string, string>;
  /** The call's timeout (0 = none). */
  timeoutMs: number;
  /** The environment direnv itself runs under (default `process.env`). */
  baseEnv?: Record<string, string>;
  /** Overrides the PATH lookup (tests). */
  direnvPath?: string;
}

export interface DirenvPreflightResult {
  command: string;
  /** Caller env with direnv's values under it; undefined when there were neither. */
  env?: Record<string, string>;
  /** True when a diff was applied. */
  applied: boolean;
}

/** The whole preflight; skips cleanly (command and env unchanged) when off or direnv is absent. */
export async function applyDirenvPreflight(input: DirenvPreflightInput): Promise<DirenvPreflightResult> {
  const unchanged: DirenvPreflightResult = { command: input.command, env: input.env, applied: false };
  if (input.mode === 'off') return unchanged;
  const base = input.baseEnv ?? stringEnv(process.env);
  const direnvPath = input.direnvPath ?? findDirenv(base);
  if (!direnvPath) return unchanged;
  const diff = await loadDirenvDiff(direnvPath, input.cwd, base, direnvBudgetMs(input.timeoutMs));
  if (!diff) return unchanged;
  return { ...mergeDirenv(input.command, input.env, diff), applied: true };
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
