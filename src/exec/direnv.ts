// direnv as the pipeline's environment stage: a project's `.envrc` (PATH additions, tool versions)
// applied to the agent's commands on every route, the way the user's own terminal would apply it.
// direnv's allow list still rules: an `.envrc` the user never allowed is never executed, because
// `direnv export` refuses it.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { UNSETTABLE_NAME, type EnvPreflight, type EnvPreflightResult } from '../core/envPreflight';
import { hostProgram } from './hostPrograms';
import { killProcessTree, spawnInGroup } from './processTree';
import type { WrapOptions, WrappedSpawn } from './sandbox/sandboxRuntime';

/**
 * Puts direnv where the command runs (sandboxRuntime.ts `wrap`): inside the OS sandbox when it is
 * on, so an `.envrc` (or whatever it sources) runs there, never on the host; its JSON is only read.
 */
export type DirenvWrap = (argv: readonly string[], opts: WrapOptions) => WrappedSpawn;

export type DirenvMode = 'auto' | 'off';

/** `bash.direnvLoadTimeoutMs`. */
export const DIRENV_LOAD_TIMEOUT_MS = 30_000;

/** What `direnv export json` reports: a value to set, or null to unset. */
export type DirenvDiff = Record<string, string | null>;

/** The load budget: the full 30 s, or less when a positive caller timeout is shorter. */
export function direnvBudgetMs(timeoutMs: number | undefined, budgetMs = DIRENV_LOAD_TIMEOUT_MS): number {
  return timeoutMs !== undefined && timeoutMs > 0 ? Math.min(budgetMs, timeoutMs) : budgetMs;
}

let cachedLookup: { path: string; found: string | undefined } | undefined;

/** `direnv` on PATH, from a trusted folder only (hostPrograms.ts; cached per PATH value, so calls without direnv cost one string compare). */
export function findDirenv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const pathValue = env.PATH ?? '';
  if (cachedLookup?.path !== pathValue) cachedLookup = { path: pathValue, found: hostProgram('direnv', pathValue) };
  return cachedLookup.found;
}

/**
 * Runs `direnv export json` in `cwd`, bounded by `budgetMs` and `signal` (the process group is killed
 * past either). Undefined when direnv fails, times out, is aborted, or has nothing to say (no `.envrc`,
 * or not allowed).
 */
export function loadDirenvDiff(
  direnvPath: string,
  cwd: string,
  env: Record<string, string>,
  budgetMs: number,
  signal?: AbortSignal,
  wrap?: DirenvWrap,
): Promise<DirenvDiff | undefined> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(undefined);
    let child: ChildProcess;
    let wrapped: WrappedSpawn | undefined;
    try {
      // DIRENV_LOG_FORMAT='' silences the "direnv: loading" chatter on stderr we don't read anyway.
      const direnvEnv = { ...env, DIRENV_LOG_FORMAT: '' };
      wrapped = wrap?.([direnvPath, 'export', 'json'], { env: direnvEnv });
      child = wrapped
        ? spawnInGroup(wrapped.file, wrapped.args, { cwd, env: wrapped.env, stdio: ['ignore', 'pipe', 'ignore', ...(wrapped.passFds ?? [])] })
        : spawnInGroup(direnvPath, ['export', 'json'], { cwd, env: direnvEnv, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      wrapped?.dispose();
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    let stopped = false;
    const stop = (): void => {
      stopped = true;
      void killProcessTree(child);
    };
    const timer = setTimeout(stop, budgetMs);
    signal?.addEventListener('abort', stop, { once: true });
    const done = (ok: boolean): void => {
      wrapped?.dispose();
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      if (!ok || stopped) return resolve(undefined);
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
 * Merges a diff under the caller's env (`{...set, ...caller}`: the caller wins); unsets the caller
 * does not re-supply become names for `unset -v …` (those that would need quoting are dropped).
 */
export function mergeDirenv(callerEnv: Record<string, string> | undefined, diff: DirenvDiff): { env: Record<string, string>; unset: string[] } {
  const set: Record<string, string> = {};
  const unset: string[] = [];
  for (const [key, value] of Object.entries(diff)) {
    if (value !== null) set[key] = value;
    else if (!(callerEnv && key in callerEnv) && UNSETTABLE_NAME.test(key)) unset.push(key);
  }
  return { env: { ...set, ...(callerEnv ?? {}) }, unset };
}

export interface DirenvPreflightInput {
  mode: DirenvMode;
  cwd: string;
  /** The caller's env overrides. */
  env?: Record<string, string>;
  /** The call's timeout (0 = none). */
  timeoutMs: number;
  /** The environment direnv itself runs under (default `process.env`). */
  baseEnv?: Record<string, string>;
  /** Overrides the PATH lookup (tests). */
  direnvPath?: string;
  /** Kills direnv when the call is cancelled. */
  signal?: AbortSignal;
  /** Where direnv runs: the command's sandbox (absent: on the host). */
  wrap?: DirenvWrap;
  /** `off`: the command runs outside the sandbox (the user approved it), and so does direnv (contained). */
  sandbox?: 'off';
}

export interface DirenvPreflightResult extends EnvPreflightResult {
  /** True when a diff was applied. */
  applied: boolean;
}

/** direnv's own markers: the environment came from a shell where an `.envrc` was loaded. */
const DIRENV_STATE = ['DIRENV_DIR', 'DIRENV_DIFF', 'DIRENV_WATCHES'];

/**
 * Whether `direnv export` can say anything here: an `.envrc` (or `.env`, which direnv may load) in
 * `cwd` or above, or an environment direnv already changed (it would unload it). Otherwise it prints
 * nothing, and the few `stat`s spare every command its start (16 ms measured here).
 */
export function direnvHasWork(cwd: string, env: Record<string, string>): boolean {
  if (DIRENV_STATE.some((name) => env[name])) return true;
  for (let dir = path.resolve(cwd); ; ) {
    if (existsSync(path.join(dir, '.envrc')) || existsSync(path.join(dir, '.env'))) return true;
    const parent = path.dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

/** One load; skips cleanly (the caller's env unchanged, nothing unset) when off or direnv is absent. */
export async function applyDirenvPreflight(input: DirenvPreflightInput): Promise<DirenvPreflightResult> {
  const unchanged: DirenvPreflightResult = { ...(input.env ? { env: input.env } : {}), applied: false };
  if (input.mode === 'off') return unchanged;
  const base = input.baseEnv ?? stringEnv(process.env);
  const direnvPath = input.direnvPath ?? findDirenv(base);
  if (!direnvPath || !direnvHasWork(input.cwd, base)) return unchanged;
  const { wrap: inner, sandbox } = input;
  const wrap: DirenvWrap | undefined = inner && ((argv, opts) => inner(argv, { ...opts, ...(sandbox ? { sandbox } : {}) }));
  const diff = await loadDirenvDiff(direnvPath, input.cwd, base, direnvBudgetMs(input.timeoutMs), input.signal, wrap);
  if (!diff) return unchanged;
  const merged = mergeDirenv(input.env, diff);
  return { env: merged.env, ...(merged.unset.length > 0 ? { unset: merged.unset } : {}), applied: true };
}

/**
 * The pipeline's environment stage backed by direnv; `mode` and `baseEnv` are read at each call.
 * With a sandbox runtime, direnv runs the way the command will: sandboxed unless the call says
 * `sandbox: "off"` or the sandbox is off (then contained, on the host, as the command is).
 */
export function direnvStage(mode: () => DirenvMode, baseEnv?: () => NodeJS.ProcessEnv, sandbox?: { wrap: DirenvWrap }): EnvPreflight {
  return async (input) => {
    const out = await applyDirenvPreflight({
      mode: mode(),
      ...input,
      ...(baseEnv ? { baseEnv: stringEnv(baseEnv()) } : {}),
      ...(sandbox ? { wrap: (argv: readonly string[], opts: WrapOptions) => sandbox.wrap(argv, opts) } : {}),
    });
    return { ...(out.env ? { env: out.env } : {}), ...(out.unset ? { unset: out.unset } : {}) };
  };
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
