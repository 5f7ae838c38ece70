// The one place Agent Bash shows modal dialogs. VS Code refuses modals in extension-test mode, so
// tests install a responder that answers by button label; the UI tier clicks the real dialog.
import * as vscode from 'vscode';
import { plainNotice } from '../../core/humanMessages';
import { untilWithdrawn } from './withdrawable';

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
  /**
   * What to tell the person who presses a button after the request was withdrawn (the caller cancelled
   * or went away while the dialog was open): nothing runs then.
   */
  withdrawn?: string;
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
  /** What the person was told after answering a withdrawn question, for tests to inspect. */
  readonly lateAnswers: string[] = [];

  /** A test responder is installed: it answers every question, also those an agent panel would ask inline. */
  get scripted(): boolean {
    return this.responder !== undefined;
  }

  setResponder(responder: PromptResponder | undefined): void {
    this.responder = responder;
    this.asked.length = 0;
    this.lateAnswers.length = 0;
  }

  async ask(question: ModalQuestion, signal?: AbortSignal): Promise<string | undefined> {
    if (signal?.aborted) return undefined;
    let shown: Promise<string | undefined>;
    if (this.responder) {
      this.asked.push(question);
      shown = Promise.resolve(this.responder(question));
    } else {
      const items: vscode.MessageItem[] = question.buttons.map((title) => ({ title, isCloseAffordance: title === question.closeButton }));
      shown = Promise.resolve(
        vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, ...items),
      ).then((item) => item?.title ?? question.closeButton);
    }
    // A withdrawn request stops waiting; VS Code has no API to close the dialog itself, so a button
    // pressed there later runs nothing and says why.
    return untilWithdrawn(shown, question, signal, (message) => {
      this.lateAnswers.push(message);
      void vscode.window.showInformationMessage(plainNotice(message));
    });
  }
}
