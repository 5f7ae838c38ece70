// `run --pty` from a terminal: the command's screen is drawn live on stderr (stdout stays the result
// text), what the user types reaches the program (raw mode, so Ctrl+C goes to the program as it
// would in its own terminal), piped stdin is forwarded too, and resizes follow the user's terminal.
// When piped stdin ends (`</dev/null`, a closed pipe) the program sees end of input, as it would
// in a terminal: Ctrl+D, which the terminal turns into EOF only at the start of a line.
import type { PtyExecutor, PtyRequest, PtySession } from '../core/contracts';

/** Ctrl+D: the terminal's end-of-input character (VEOF). */
const EOF = '\x04';

export class TtyPtyExecutor implements PtyExecutor {
  constructor(
    private readonly inner: PtyExecutor,
    private readonly stdin: NodeJS.ReadStream = process.stdin,
    private readonly screen: NodeJS.WriteStream = process.stderr,
  ) {}

  start(req: PtyRequest): PtySession {
    const { stdin, screen } = this;
    const size = screen.isTTY ? { cols: screen.columns, rows: screen.rows } : {};
    const session = this.inner.start({
      ...req,
      ...size,
      onData: (data) => {
        screen.write(data);
        req.onData?.(data);
      },
    });
    const raw = stdin.isTTY === true;
    if (raw) stdin.setRawMode(true);
    let atLineStart = true;
    const onInput = (chunk: Buffer | string): void => {
      const text = chunk.toString();
      if (text.length > 0) atLineStart = text.endsWith('\n') || text.endsWith('\r');
      session.write(text);
    };
    // Mid-line, the first Ctrl+D only hands the partial line to the reader; the second is the EOF.
    const onEnd = (): void => session.write(atLineStart ? EOF : EOF + EOF);
    const onResize = (): void => session.resize(screen.columns, screen.rows);
    stdin.on('data', onInput);
    if (!raw) stdin.once('end', onEnd);
    stdin.resume();
    if (screen.isTTY) screen.on('resize', onResize);
    const restore = (): void => {
      stdin.off('data', onInput);
      stdin.off('end', onEnd);
      stdin.pause();
      if (raw) stdin.setRawMode(false);
      screen.off('resize', onResize);
    };
    session.result.then(restore, restore);
    return session;
  }
}
