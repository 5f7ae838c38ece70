// The Run Agent Bash box's one option, typed in front of the command (`--timeout 30 npm test`).
export const TIMEOUT_PREFIX_MESSAGE = '--timeout needs a number of seconds and then the command: --timeout 30 npm test';

/**
 * The box's one option, in front of the command: `--timeout 30 npm test` runs `npm test` with a
 * 30 s timeout (the pipeline clamps it as for any caller). `invalid`: the prefix is there but unreadable.
 */
export function parseTimeoutPrefix(text: string): { command: string; timeout?: number } | { invalid: true } {
  if (!/^--timeout(?:[\s=]|$)/.test(text)) return { command: text };
  const m = /^--timeout(?:=|\s+)(\d+(?:\.\d+)?)\s+(\S[\s\S]*)$/.exec(text);
  if (!m) return { invalid: true };
  return { command: m[2], timeout: Number(m[1]) };
}
