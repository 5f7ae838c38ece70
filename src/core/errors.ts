// Errors the pipeline turns into `isError` results carrying their message text.

/** A failure the model should read: bad input, a block, a timeout, a missing exit status. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** The caller cancelled (abort signal). */
export class ToolAbortError extends Error {
  override readonly name = 'ToolAbortError';
}
