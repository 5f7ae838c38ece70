// One VS Code terminal for one caller session ("AB: Copilot"): a Pseudoterminal that shows its
// commands one after another, each as a region — a header line (`$ command`, and the directory when
// it is not the workspace's), the output, and a status line in plain words. One command runs in it at
// a time (`busy`); Ctrl+C stops that command only, closing the terminal stops it and tells every
// command drawn here (their handles are released).
//
// State: VS Code 1.95 fixes `iconPath` and `color` when a terminal is created; neither the Terminal
// nor the Pseudoterminal can change them later. `Pseudoterminal.onDidChangeName` looks like a way
// out but is not one for a named terminal: the workbench takes it as a process title, which the
// static name given at creation overrides (and which it cuts at the first space). So the tab's icon
// and colour say which kind of caller it is, and each command's state is drawn inside the terminal:
// a green ✓ or red ✗ status line after its output.
import * as vscode from 'vscode';
import type { CallerInfo, TerminalExitStatus } from '../../core/contracts';
import { headerDescription, oneLine } from '../../core/terminalText';
import { TerminalView } from './terminalView';

/** A command drawn in a caller terminal. */
export interface Region {
  write(chunk: Buffer): void;
  /** Writes the status line; the terminal is free for the next command. */
  end(status: string, ok: boolean): void;
}

export interface RegionOwner {
  /** Ctrl+C in the terminal while this command runs. */
  interrupt(): void;
  /** The terminal was closed: stop, and forget the handle. */
  closed(): void;
}

/** What a caller's terminal name starts with: short, so a tab shows whose it is ("AB: Copilot"). */
export const TERMINAL_PREFIX = 'AB';

/** The terminal's name for a caller: "Agent Bash" for the palette or an unnamed API caller, else "AB: <caller>". */
export function callerTerminalName(caller: CallerInfo | undefined): string {
  if (!caller) return 'Agent Bash';
  if (caller.kind === 'bang') return `${TERMINAL_PREFIX}: You`;
  const name = caller.name.trim() || (caller.kind === 'lmTool' ? 'Copilot' : '');
  return name ? `${TERMINAL_PREFIX}: ${name}` : 'Agent Bash';
}

/** The tab colour says which kind of caller it is (fixed at creation). */
function callerColor(caller: CallerInfo | undefined): vscode.ThemeColor | undefined {
  switch (caller?.kind) {
    case 'lmTool':
      return new vscode.ThemeColor('terminal.ansiBlue');
    case 'acp':
    case 'mcp':
      return new vscode.ThemeColor('terminal.ansiMagenta');
    case 'bang':
      return new vscode.ThemeColor('terminal.ansiYellow');
    default:
      return undefined;
  }
}

/** The status line's words: `exit code 0`, `killed by SIGTERM`. */
export function exitWords(status: TerminalExitStatus): string {
  return status.signal ? `killed by ${status.signal}` : `exit code ${status.exitCode ?? '?'}`;
}

export class CallerTerminal {
  readonly terminal: vscode.Terminal;
  readonly baseName: string;
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly view: TerminalView;
  private readonly owners = new Set<RegionOwner>();
  private running: RegionOwner | undefined;
  private regions = 0;
  private disposed = false;

  /** `onClose`: the user (or anything) closed the terminal; called once. */
  constructor(
    caller: CallerInfo | undefined,
    suffix: string,
    show: boolean,
    private readonly onClose: (t: CallerTerminal) => void,
  ) {
    this.baseName = `${callerTerminalName(caller)}${suffix}`;
    this.view = new TerminalView(this.writeEmitter);
    const pty: vscode.Pseudoterminal = {
      onDidWrite: this.writeEmitter.event,
      open: () => this.view.open(),
      close: () => this.closed(),
      handleInput: (data) => {
        if (data === '\x03') this.running?.interrupt();
      },
    };
    const color = callerColor(caller);
    this.terminal = vscode.window.createTerminal({
      name: this.baseName,
      pty,
      iconPath: new vscode.ThemeIcon('terminal-bash'),
      ...(color ? { color } : {}),
    });
    if (show) this.terminal.show(true);
  }

  /** A command runs in it now. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * Starts a command's region: `$ line` and, when given, the directory it runs in; the caller's
   * `description` follows as a dim `# …` line of its own.
   */
  begin(line: string, cwd: string | undefined, owner: RegionOwner, description?: string): Region {
    this.running = owner;
    this.owners.add(owner);
    const where = cwd ? `  \x1b[2m(in ${cwd})\x1b[0m` : '';
    this.view.writeLine(`${this.regions++ > 0 ? '\n' : ''}\x1b[1m$ ${oneLine(line)}\x1b[0m${where}`, true);
    if (description) this.view.writeLine(`\x1b[2m# ${headerDescription(description)}\x1b[0m`, true);
    let ended = false;
    return {
      write: (chunk) => {
        if (!ended) this.view.write(chunk);
      },
      end: (status, ok) => {
        if (ended) return;
        ended = true;
        // Drawn with the next flush (≤ FLUSH_MS): the result goes back to the caller before the
        // workbench spends its frame on this command's lines.
        this.view.writeLine(`${ok ? '\x1b[32m✓' : '\x1b[31m✗'}\x1b[0m \x1b[2m${status}\x1b[0m`, true);
        if (this.running === owner) this.running = undefined;
      },
    };
  }

  /** The command's handle is gone: closing the terminal no longer concerns it. */
  forget(owner: RegionOwner): void {
    this.owners.delete(owner);
  }

  /** Closes the terminal on screen (nothing runs in it any more). Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.view.dispose();
    this.terminal.dispose();
    this.writeEmitter.dispose();
  }

  /** Pseudoterminal.close, or the window's close event (not every way a terminal goes calls the first). */
  closed(): void {
    if (this.disposed) return;
    const owners = [...this.owners];
    this.owners.clear();
    this.running = undefined;
    this.dispose();
    for (const o of owners) o.closed();
    this.onClose(this);
  }
}
