// What the agent panel says in words: how a turn ended ("Done", "Stopped", "Failed: …" instead of
// ACP's stop reasons), each tool call's state, and output tails that are bounded and start at a line.
// Tests assert these texts; change them here only.

/** How a turn ended, from ACP's `stopReason` (`end_turn`, `cancelled`, `max_tokens`, …). */
export function turnEndStatus(stopReason: string): string {
  switch (stopReason) {
    case 'end_turn':
      return 'Done';
    case 'cancelled':
      return 'Stopped';
    case 'max_tokens':
      return 'Failed: the agent ran out of room for its answer (it reached its token limit)';
    case 'max_turn_requests':
      return 'Failed: the agent made more model requests in this turn than it may';
    case 'refusal':
      return 'Failed: the agent refused to go on';
    default:
      return `Failed: the agent stopped for a reason it did not explain (${stopReason})`;
  }
}

/** The prompt itself failed (the agent answered with an error, or the connection broke). */
export function turnFailedStatus(message: string): string {
  return `Failed: ${message}`;
}

/** A tool call's state in a word, for its badge (ACP: pending, in_progress, completed, failed). */
export function toolStatusWord(status: string): string {
  switch (status) {
    case 'pending':
      return 'Waiting';
    case 'in_progress':
      return 'Running';
    case 'completed':
      return 'Done';
    case 'failed':
      return 'Failed';
    default:
      return status;
  }
}

/**
 * The end of `text`, at most `max` characters, starting at a line start (the partial first line is
 * dropped, unless the kept part is a single line); `cut` says whether anything was left out.
 */
export function boundedTail(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const from = text.length - max;
  // `from` already at a line start: keep it.
  if (text[from - 1] === '\n') return { text: text.slice(from), cut: true };
  const nl = text.indexOf('\n', from);
  return { text: nl >= 0 && nl < text.length - 1 ? text.slice(nl + 1) : text.slice(from), cut: true };
}
