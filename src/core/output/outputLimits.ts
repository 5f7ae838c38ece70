// Every byte/line/time limit of the output path (docs/ARCHITECTURE.md, Output), in one place so the
// sink, the inline cap, the notices and the tests agree on the same numbers.

/** The in-memory budget of a result body (`DEFAULT_MAX_BYTES`, 50 KiB). */
export const DEFAULT_MAX_BYTES = 51200;
/** Head window kept verbatim at the start of a long stream (`tools.artifactHeadBytes`, 20 KiB). */
export const DEFAULT_HEAD_BYTES = 20480;
/** Per-line byte cap (`tools.outputMaxColumns`); 0 disables. */
export const DEFAULT_MAX_COLUMNS = 768;
/** What the final inline cap allows above the spill threshold. */
export const INLINE_CAP_SLACK_BYTES = 2048;
/** The final inline cap's default budget: 50 KiB + 2 KiB = 53,248 bytes. */
export const DEFAULT_INLINE_CAP_BYTES = DEFAULT_MAX_BYTES + INLINE_CAP_SLACK_BYTES;
/** Share of the inline-cap budget kept from the start of an oversized text. */
export const INLINE_CAP_HEAD_RATIO = 0.6;
/** Share of the inline-cap budget kept from the end of an oversized text. */
export const INLINE_CAP_TAIL_RATIO = 0.25;
/** Size of the streaming preview (`TailBuffer(50 KiB)`) and of a background job's progress tail. */
export const TAIL_PREVIEW_BYTES = 51200;
/**
 * A TailBuffer joins its pieces once it holds more than this many: rare enough that pipe-sized
 * chunks (64 KiB) under a 4 MiB limit are never copied, often enough that byte-sized ones stay cheap.
 */
export const TAIL_BUFFER_MAX_PIECES = 1024;
/** `onChunk` is called at most this often (ms) when streaming. */
export const DEFAULT_CHUNK_THROTTLE_MS = 50;
/**
 * Throttled `onChunk` text is flushed early once this much is pending, so a fast producer cannot
 * make the sink hold 50 ms worth of output (which at 1 GB/s would be 50 MB).
 */
export const CHUNK_PENDING_MAX_BYTES = 1024 * 1024;
/**
 * An escape sequence cut by a chunk boundary is held for the next chunk up to this many bytes, so
 * `ESC[3` + `1m` does not leak `1m` into the text. Longer unterminated sequences are not held.
 */
export const ESCAPE_CARRY_MAX_BYTES = 512;
/** The ACP `outputByteLimit` sent to a client terminal. */
export const CLIENT_OUTPUT_BYTE_LIMIT = DEFAULT_MAX_BYTES;
/** The ellipsis appended to a column-cut line (3 bytes in UTF-8). */
export const COLUMN_ELLIPSIS = '…';
