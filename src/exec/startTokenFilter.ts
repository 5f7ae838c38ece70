// A login shell's profile may print (pyenv's "cannot rehash", banners, nvm notices) before the
// command runs; that text belongs to no command and must not reach its output. The one-shot script
// prints a random token right after `exec 2>&1`, and this filter drops what came before it: the
// profile's stdout up to the token, and everything on the stderr pipe (after `exec 2>&1` the command
// writes only to stdout). If the shell ends before the token, nothing was the command's yet, and the
// held text is handed over after all, so no error is ever hidden.
import { randomBytes } from 'node:crypto';

/** Held profile output beyond this is dropped from the hold (the token is still looked for). */
const MAX_HELD_BYTES = 64 * 1024;

export class StartTokenFilter {
  readonly token = `__agent_bash_start_${randomBytes(12).toString('hex')}__`;
  private readonly tokenBytes = Buffer.from(this.token);
  private seen = false;
  private pending = Buffer.alloc(0);
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(private readonly push: (chunk: Buffer) => void) {}

  /** The shell code that marks the start (after `exec 2>&1`). */
  get marker(): string {
    return `printf '%s' '${this.token}'`;
  }

  stdout(chunk: Buffer): void {
    if (this.seen) {
      this.push(chunk);
      return;
    }
    this.hold(chunk);
    const data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const at = data.indexOf(this.tokenBytes);
    if (at >= 0) {
      this.seen = true;
      this.pending = Buffer.alloc(0);
      this.held = [];
      const rest = data.subarray(at + this.tokenBytes.length);
      if (rest.length) this.push(Buffer.from(rest));
      return;
    }
    // Keep a tail that could be the start of a token cut by the chunk boundary.
    this.pending = Buffer.from(data.subarray(Math.max(0, data.length - (this.tokenBytes.length - 1))));
  }

  stderr(chunk: Buffer): void {
    if (!this.seen) this.hold(chunk);
  }

  /** The shell is gone: if it never reached the command, what it printed (in order) is the result. */
  end(): void {
    if (this.seen) return;
    for (const b of this.held) this.push(b);
    this.held = [];
    this.pending = Buffer.alloc(0);
  }

  private hold(b: Buffer): void {
    if (b.length === 0 || this.heldBytes >= MAX_HELD_BYTES) return;
    this.held.push(Buffer.from(b));
    this.heldBytes += b.length;
  }
}
