// The one place Agent Bash shows modal dialogs. VS Code refuses modals in extension-test mode, so
// tests install a responder that answers by button label; the UI tier clicks the real dialog.
import * as vscode from 'vscode';

export interface ModalQuestion {
  message: string;
  detail?: string;
  /** Button labels in order; dismissing the dialog answers undefined. */
  buttons: string[];
  /**
   * The button Escape (or closing the dialog) stands for; VS Code then shows no extra Cancel button.
   * Dismissing answers this label.
   */
  closeButton?: string;
}

/** Anything that can put a question to a person: this modal prompter, or an agent panel's inline card. */
export interface QuestionAsker {
  ask(question: ModalQuestion, signal?: AbortSignal): Promise<string | undefined>;
}

export type PromptResponder = (question: ModalQuestion) => string | undefined | Promise<string | undefined>;

export class ModalPrompter implements QuestionAsker {
  private responder: PromptResponder | undefined;
  /** Every question asked while a responder was installed, for tests to inspect. */
  readonly asked: ModalQuestion[] = [];

  /** A test responder is installed: it answers every question, also those an agent panel would ask inline. */
  get scripted(): boolean {
    return this.responder !== undefined;
  }

  setResponder(responder: PromptResponder | undefined): void {
    this.responder = responder;
    this.asked.length = 0;
  }

  async ask(question: ModalQuestion, signal?: AbortSignal): Promise<string | undefined> {
    if (signal?.aborted) return undefined;
    if (this.responder) {
      this.asked.push(question);
      return this.responder(question);
    }
    const items: vscode.MessageItem[] = question.buttons.map((title) => ({ title, isCloseAffordance: title === question.closeButton }));
    const shown = Promise.resolve(
      vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, ...items),
    ).then((item) => item?.title ?? question.closeButton);
    if (!signal) return shown;
    // A cancelled request stops waiting; VS Code has no API to close the dialog itself.
    return Promise.race([
      shown,
      new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true })),
    ]);
  }
}
