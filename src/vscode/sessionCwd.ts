// The session's working directory: the first workspace folder until the user's own `cd` (a bang
// command) moves it. Agent commands without a cwd start here.
export class SessionCwd {
  private moved: string | undefined;

  constructor(private readonly fallback: () => string) {}

  get(): string {
    return this.moved ?? this.fallback();
  }

  set(dir: string): void {
    this.moved = dir;
  }
}
