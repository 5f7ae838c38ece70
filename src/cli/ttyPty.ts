// `run --pty` from a terminal: the command's screen is drawn live on stderr (stdout stays the result
// text), what the user types reaches the program (raw mode, so Ctrl+C goes to the program as it
// would in its own terminal), piped stdin is forwarded too, and resizes follow the user's terminal.
import type { PtyExecutor, PtyRequest, PtySession } from '../core/contracts';

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
    const onInput = (chunk: Buffer | string): void => session.write(chunk.toString());
    const onResize = (): void => session.resize(screen.columns, screen.rows);
    stdin.on('data', onInput);
    stdin.resume();
    if (screen.isTTY) screen.on('resize', onResize);
    const restore = (): void => {
      stdin.off('data', onInput);
      stdin.pause();
      if (raw) stdin.setRawMode(false);
      screen.off('resize', onResize);
    };
    session.result.then(restore, restore);
    return session;
  }
}
