// One failed test as the line all.mjs prints at the end of `npm test` (a CI log keeps only its tail):
// the title and the whole message (an assertion's "Input:" follows its first line), bounded, with
// newlines shown as \n so it stays one line.
export function failureLine(title, err) {
  return `${title}: ${JSON.stringify(String(err?.message ?? err).slice(0, 1200)).slice(1, -1)}`;
}
