// The session's working directory: the first workspace folder until the user's own `cd` (a bang
// command) moves it. Agent commands without a cwd start here.
export class SessionCwd {
  private moved: string | undefined;
  private readonly listeners = new Set<(dir: string) => void>();

  constructor(private readonly fallback: () => string) {}

  get(): string {
    return this.moved ?? this.fallback();
  }

  /** The workspace folder agent commands start in when nobody moved them. */
  home(): string {
    return this.fallback();
  }

  set(dir: string): void {
    this.moved = dir;
    for (const l of this.listeners) l(this.get());
  }

  /** Back to the workspace folder. */
  reset(): void {
    this.moved = undefined;
    for (const l of this.listeners) l(this.get());
  }

  /** Returns an unsubscribe function. */
  onDidChange(listener: (dir: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
