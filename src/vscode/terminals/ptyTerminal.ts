// PTY runs (`pty: true`) shown in a VS Code terminal: the user sees the program, types into it (keys
// reach node-pty), and Esc or closing the terminal kills it. Wraps any PtyExecutor.
import * as vscode from 'vscode';
import type { PtyExecutor, PtyRequest, PtySession } from '../../core/contracts';
import { TERMINAL_PREFIX } from './callerTerminal';

const ESC = '\x1b';

export class TerminalPtyExecutor implements PtyExecutor {
  /** `inner` is asked per run, so shell settings apply without a reload. */
  constructor(private readonly inner: () => PtyExecutor) {}

  start(req: PtyRequest): PtySession {
    const writeEmitter = new vscode.EventEmitter<string>();
    let opened = false;
    let backlog = '';
    let session: PtySession | undefined;
    let done = false;
    const pty: vscode.Pseudoterminal = {
      onDidWrite: writeEmitter.event,
      open: (dims) => {
        opened = true;
        if (dims) session?.resize(dims.columns, dims.rows);
        if (backlog) writeEmitter.fire(backlog);
        backlog = '';
      },
      close: () => {
        if (!done) session?.kill();
      },
      // A lone Esc is the user's "stop"; escape sequences (arrows, …) are longer and pass through.
      handleInput: (data) => {
        if (done) return;
        if (data === ESC) session?.kill();
        else session?.write(data);
      },
      setDimensions: (dims) => session?.resize(dims.columns, dims.rows),
    };
    const terminal = vscode.window.createTerminal({ name: `${TERMINAL_PREFIX} (pty): ${oneLine(req.command)}`, pty });
    terminal.show(false);
    const show = (data: string) => {
      if (opened) writeEmitter.fire(data);
      else backlog += data;
    };
    session = this.inner().start({
      ...req,
      onData: (data) => {
        show(data);
        req.onData?.(data);
      },
    });
    const started = session;
    // Pseudoterminal.close is not called for every way a terminal goes away; the close event is.
    const closeSub = vscode.window.onDidCloseTerminal((closed) => {
      if (closed === terminal && !done) started.kill();
    });
    void started.result.finally(() => {
      closeSub.dispose();
    });
    void started.result.then(
      (r) => {
        done = true;
        show(`\r\n\x1b[2m${r.signal ? `[killed by ${r.signal}]` : `[exit code ${r.exitCode}]`}\x1b[0m\r\n`);
      },
      () => {
        done = true;
      },
    );
    return started;
  }
}

function oneLine(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
