// Text Agent Bash itself draws in a terminal (a command's header line, the caller's description):
// every character it holds is shown, none is obeyed.
import { OUTSIDE_SANDBOX_MARK, READ_ONLY_MARKS } from './history';
import { refusalSentence } from './humanMessages';
import { findViolations } from './sandboxRefusals';

/**
 * Control characters (an escape sequence in a command or a description could redraw the header or
 * set the title) become their visible pictures (␛, ␇, ␡); C1 controls and bidirectional overrides
 * a replacement character.
 */
export function visible(text: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return text.replace(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    return code === 0x7f ? '\u2421' : '\ufffd';
  });
}

/** A command line on one line: each line break (with the blanks around it) shown as ` ⏎ `. */
export function oneLine(line: string): string {
  return visible(line.replace(/\s*\n\s*/g, ' ⏎ '));
}

/** The caller's description on one line, at most 200 characters. */
export function headerDescription(description: string): string {
  const flat = oneLine(description.trim());
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/**
 * The status line of a command that failed in the OS sandbox because the sandbox refused something
 * says so in words, as its notification does: `exit code 1 · The sandbox kept this command from
 * writing /tmp/x.` Other runs keep `words` as they are.
 */
export function statusWithRefusal(words: string, run: { sandboxed: boolean; exitCode: number | null; output: string }): string {
  if (!run.sandboxed || run.exitCode === 0) return words;
  const refused = findViolations(run.output);
  return refused.paths.length || refused.hosts.length ? `${words} · ${refusalSentence(refused)}` : words;
}

/**
 * A command's status line in its terminal: how it ended (with what the sandbox refused), and
 * `outside the sandbox` where a sandbox exists but did not hold this command (the caller asked for
 * `off`, or it could not start here), or `read-only` for a read the fence held, as its History row
 * says. `level` undefined: no sandbox at all.
 */
export function terminalStatusLine(words: string, run: { level: string | undefined; exitCode: number | null; output: string; fenced?: boolean }): string {
  const line = statusWithRefusal(words, { sandboxed: run.level === 'sandboxed', exitCode: run.exitCode, output: run.output });
  if (run.level === undefined) return line;
  if (run.level !== 'sandboxed') return `${line} · ${OUTSIDE_SANDBOX_MARK}`;
  // An auto-approved read ran under the read-only fence (it never runs unfenced: sandboxRuntime.ts).
  return run.fenced === true ? `${line} · ${READ_ONLY_MARKS.enforced}` : line;
}
