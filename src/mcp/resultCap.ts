// Results that fit the clients: Claude Code replaces any tool result over ~50,000 characters with a
// 2 KB preview, so the model would see neither the tail nor the `artifact://` footer of a long run.
// An MCP result's text is kept under a cap (characters, not bytes: that is what clients count), with
// the start, the end (where the exit status and the footer are) and a line in between naming what was
// cut and where the whole text is. Nothing is lost: when the cut text is not already in an artifact
// of this session, the whole result text is saved as one first.
import type { ArtifactStore } from '../core/contracts';
import { artifactUrl } from '../core/output/artifacts';

/**
 * Default cap on an MCP result's text (`agentBash.mcp.maxResultCharacters`, `--max-result-chars`).
 * Gemini CLI cuts an MCP result over 40,000 characters to its first 8,000 and last 32,000, counting
 * the `<untrusted_context>` lines it wraps the text in: a 39,997-character result was cut. This
 * leaves room for such wrappers; Claude Code's limit (~50,000) is further off.
 */
export const DEFAULT_MCP_RESULT_CHARS = 38_000;
/** The smallest client threshold seen (Gemini CLI 0.61's truncateToolOutputThreshold). */
export const GEMINI_CLI_RESULT_THRESHOLD = 40_000;
/** The smallest cap that still leaves room for a useful head, tail and the notice. */
export const MIN_MCP_RESULT_CHARS = 2_000;
/** Share of the kept text taken from the start; the rest comes from the end. */
const HEAD_SHARE = 0.4;
/** Kind of an artifact that holds a whole result text cut for a client. */
export const CAPPED_RESULT_KIND = 'mcp-result';

export function cutNotice(cut: number, cap: number, artifactId: string): string {
  return `[… ${cut} characters cut here to fit the client's ${cap}-character limit; the whole text is ${artifactUrl(artifactId)} (read_artifact) …]`;
}

/** The last `artifact://N` a result text names (its footer), if any. */
export function namedArtifact(text: string): string | undefined {
  const all = [...text.matchAll(/artifact:\/\/([1-9][0-9]*)/g)];
  return all.at(-1)?.[1];
}

/** Index of the first line start at or after `at` (or `at` when the line is longer than `slack`). */
function lineStartFrom(text: string, at: number, slack: number): number {
  const nl = text.indexOf('\n', at);
  return nl >= 0 && nl - at <= slack ? nl + 1 : at;
}

/** Index just after the last line end at or before `at` (or `at` when that is too far back). */
function lineEndBefore(text: string, at: number, slack: number): number {
  const nl = text.lastIndexOf('\n', at - 1);
  return nl >= 0 && at - nl <= slack ? nl + 1 : at;
}

/** Keeps a UTF-16 cut off the middle of a surrogate pair. */
function safeIndex(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return c >= 0xdc00 && c <= 0xdfff ? at + 1 : at;
}

/**
 * The text under `cap` characters. `artifactIdFor` gives the artifact that holds the whole text:
 * the one the text already names when its full output was spilled, or a new one.
 */
export async function capText(text: string, cap: number, artifactIdFor: () => Promise<string>): Promise<string> {
  if (text.length <= cap) return text;
  const id = await artifactIdFor();
  // The notice's own length depends on the numbers in it; reserve for the longest.
  const reserve = cutNotice(text.length, cap, id).length + 2;
  const budget = Math.max(0, cap - reserve);
  const slack = 200;
  const headEnd = safeIndex(text, lineEndBefore(text, Math.floor(budget * HEAD_SHARE), slack));
  const tailStart = safeIndex(text, lineStartFrom(text, text.length - (budget - headEnd), slack));
  const cut = tailStart - headEnd;
  const head = text.slice(0, headEnd);
  return `${head}${head.endsWith('\n') || head === '' ? '' : '\n'}${cutNotice(cut, cap, id)}\n${text.slice(tailStart)}`;
}

/**
 * Caps a result's text parts, taken together. The artifact is the one the text names when this
 * session may read it, else the whole text saved as a new artifact `own` registers with the session.
 */
export async function capResultText(
  parts: string[],
  cap: number,
  artifacts: ArtifactStore,
  owns: (id: string) => boolean,
  own: (id: string) => void,
): Promise<string[]> {
  const whole = parts.join('\n');
  if (whole.length <= cap) return parts;
  const capped = await capText(whole, cap, async () => {
    const named = namedArtifact(whole);
    // A named artifact holds the full output but not the notices around it: fine when only the
    // output's middle is cut; the notices stay in the kept head and tail.
    if (named !== undefined && owns(named)) return named;
    const id = await artifacts.save(CAPPED_RESULT_KIND, whole);
    own(id);
    return id;
  });
  return [capped];
}
