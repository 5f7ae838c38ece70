// The box of Run Agent Bash. Enter runs exactly the text in the box, however fast it was typed or
// pasted: the box is an input box with no list, so there is no highlighted entry that Enter could take
// instead. (A quick pick holding recent commands did that: its list is filtered and highlighted in the
// workbench while the typed value travels to the extension, so a fill followed at once by Enter
// accepted a recent entry the user never chose.) Recent commands are a separate, explicit path: the
// history button opens a list of them, and the one picked is put back in the box to run with Enter.
import * as vscode from 'vscode';
import { parseTimeoutPrefix, TIMEOUT_PREFIX_MESSAGE } from '../../core/timeoutPrefix';

export const RUN_BOX_TITLE = 'Run Agent Bash';
export const RUN_BOX_PROMPT = 'Command to run (through the policy, in a terminal). Enter runs exactly this text. Start with --timeout 30 to stop it after 30 s.';
export const RECENT_BUTTON_TOOLTIP = 'Recent commands';
export const RECENT_PICK_TITLE = 'Agent Bash: recent commands';
export const EMPTY_COMMAND_MESSAGE = 'Type a command to run.';

type BoxResult = { kind: 'run'; command: string } | { kind: 'recent'; typed: string } | { kind: 'cancel' };

/** Asks for a command; undefined when the user closed the box. `recent`: newest first. */
export async function askCommand(recent: readonly string[]): Promise<string | undefined> {
  let value = '';
  for (;;) {
    const result = await commandBox(value, recent.length > 0);
    if (result.kind === 'run') return result.command;
    if (result.kind === 'cancel') return undefined;
    // Back to the box with the recent command in it, or with what was typed when none was picked.
    value = (await pickRecent(recent)) ?? result.typed;
  }
}

function commandBox(value: string, hasRecent: boolean): Promise<BoxResult> {
  const box = vscode.window.createInputBox();
  box.title = RUN_BOX_TITLE;
  box.prompt = RUN_BOX_PROMPT;
  box.placeholder = hasRecent ? 'git status   (the history button lists recent commands)' : 'git status';
  box.value = value;
  // A terminal that shows itself as an earlier command ends must not close the box being typed in.
  box.ignoreFocusOut = true;
  if (value) box.valueSelection = [0, value.length];
  const recentButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('history'), tooltip: RECENT_BUTTON_TOOLTIP };
  if (hasRecent) box.buttons = [recentButton];
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: BoxResult) => {
      if (done) return;
      done = true;
      resolve(result);
      box.dispose();
    };
    box.onDidChangeValue(() => {
      if (box.validationMessage) box.validationMessage = undefined;
    });
    box.onDidAccept(() => {
      // The value as the box has it when Enter arrives: value changes reach the extension before the accept.
      const command = box.value;
      if (!command.trim()) {
        box.validationMessage = EMPTY_COMMAND_MESSAGE;
        return;
      }
      if ('invalid' in parseTimeoutPrefix(command)) {
        box.validationMessage = TIMEOUT_PREFIX_MESSAGE;
        return;
      }
      finish({ kind: 'run', command });
    });
    box.onDidTriggerButton((button) => {
      if (button === recentButton) finish({ kind: 'recent', typed: box.value });
    });
    box.onDidHide(() => finish({ kind: 'cancel' }));
    box.show();
  });
}

/** The recent commands as a list; the picked one, or undefined when none was. */
function pickRecent(recent: readonly string[]): Promise<string | undefined> {
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { command: string }>();
  pick.title = RECENT_PICK_TITLE;
  pick.placeholder = 'Pick a command to put in the box (Enter there runs it)';
  // `$(name)` in a label is an icon: escaped, a command like `echo $(date)` shows as written.
  const items = recent.map((command) => ({ label: command.replace(/\$\(/g, '\\$('), command }));
  pick.items = items;
  return new Promise((resolve) => {
    let done = false;
    const finish = (command: string | undefined) => {
      if (done) return;
      done = true;
      resolve(command);
      pick.dispose();
    };
    pick.onDidAccept(() => finish(pick.selectedItems[0]?.command ?? pick.activeItems[0]?.command));
    pick.onDidHide(() => finish(undefined));
    pick.show();
  });
}
