// The environment stage of the pipeline (direnv, see docs/ARCHITECTURE.md "Pipeline"): before any route
// runs a command, the project's environment for the cwd is merged under the caller's `env`. Variables
// the project unsets travel as names, so each route can put `unset -v …;` in front of the whole line,
// shell prefix included.

export interface EnvPreflightInput {
  cwd: string;
  /** The caller's env overrides (URL-expanded). */
  env?: Record<string, string>;
  /** The call's timeout (0 = none): the stage's own budget is clamped to it. */
  timeoutMs: number;
  /** The call's cancellation: whatever the stage started is killed with it. */
  signal?: AbortSignal;
  /** `off`: the command runs outside the OS sandbox, and so may the stage; absent: where the command runs. */
  sandbox?: 'off';
}

export interface EnvPreflightResult {
  /** The caller's env with the project's values under it; undefined when there were neither. */
  env?: Record<string, string>;
  /** Inherited variables the project unsets and the caller does not re-supply. */
  unset?: string[];
}

export type EnvPreflight = (input: EnvPreflightInput) => Promise<EnvPreflightResult>;

/** Names that may appear in `unset -v …` without quoting. */
export const UNSETTABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `unset -v A B; <line>`, or the line alone; names that need quoting are dropped. */
export function withUnsets(line: string, unset: readonly string[] | undefined): string {
  const names = (unset ?? []).filter((name) => UNSETTABLE_NAME.test(name));
  return names.length > 0 ? `unset -v ${names.join(' ')}; ${line}` : line;
}
