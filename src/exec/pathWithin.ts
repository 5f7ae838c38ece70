// Two path questions the sandbox's planners ask of absolute, normalised paths.
import { realpathSync } from 'node:fs';

/** `p` is `dir` or lies beneath it (compared as text, by whole path segments). */
export function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** The real path of `p`, or undefined where it cannot be resolved (missing, a loop, no access). */
export function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}
