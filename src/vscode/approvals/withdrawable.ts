// A question whose request can be withdrawn while it is shown: the caller cancelled its call or went
// away (an MCP client's notifications/cancelled, a dropped connection, a closed session). The asker
// stops waiting at once (undefined, which approvers read as "nothing runs"). A modal dialog cannot be
// closed by an extension, so it stays on screen: a button the person presses there afterwards runs
// nothing, and they are told why (`question.withdrawn`). Closing it (its close button) needs no word.

/** What of a question (modalPrompter.ts ModalQuestion) decides whether a late answer is told. */
export interface WithdrawableQuestion {
  /** The dismissing button: pressing it late needs no word. */
  closeButton?: string;
  /** What the person is told who answers after the request was withdrawn. */
  withdrawn?: string;
}

/**
 * `shown`'s answer, or undefined once `signal` aborts; a later answer other than the close button
 * goes to `onLateAnswer` with the question's `withdrawn` text.
 */
export function untilWithdrawn(
  shown: Promise<string | undefined>,
  question: WithdrawableQuestion,
  signal: AbortSignal | undefined,
  onLateAnswer: (message: string, answer: string) => void,
): Promise<string | undefined> {
  if (!signal) return shown;
  if (signal.aborted) {
    void shown.then((answer) => lateAnswer(answer, question, onLateAnswer), () => undefined);
    return Promise.resolve(undefined);
  }
  return new Promise<string | undefined>((resolve, reject) => {
    let withdrawn = false;
    const onAbort = (): void => {
      withdrawn = true;
      resolve(undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    shown.then(
      (answer) => {
        signal.removeEventListener('abort', onAbort);
        if (withdrawn) lateAnswer(answer, question, onLateAnswer);
        else resolve(answer);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (!withdrawn) reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

function lateAnswer(answer: string | undefined, question: WithdrawableQuestion, onLateAnswer: (message: string, answer: string) => void): void {
  if (answer === undefined || answer === question.closeButton || question.withdrawn === undefined) return;
  onLateAnswer(question.withdrawn, answer);
}
