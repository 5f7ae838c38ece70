// "Allow for this session": the commands a person allowed for the rest of one caller session. A later
// request with the same command line in the same directory from the same session is answered without
// asking; any other session (another ACP connection, another chat) is asked again.
import type { ApprovalRequest } from './contracts';

/** Requests without a named caller share this session (the VS Code window's own). */
export const UNNAMED_SESSION = 'window';

export class SessionApprovals {
  private readonly allowed = new Map<string, Set<string>>();

  remember(req: ApprovalRequest): void {
    const session = sessionOf(req);
    let set = this.allowed.get(session);
    if (!set) {
      set = new Set();
      this.allowed.set(session, set);
    }
    set.add(keyOf(req));
  }

  has(req: ApprovalRequest): boolean {
    return this.allowed.get(sessionOf(req))?.has(keyOf(req)) ?? false;
  }

  /** The session ended (its agent disconnected): forget what it was allowed. */
  forget(sessionId: string): void {
    this.allowed.delete(sessionId);
  }
}

function sessionOf(req: ApprovalRequest): string {
  return req.caller?.sessionId ?? UNNAMED_SESSION;
}

function keyOf(req: ApprovalRequest): string {
  return `${req.cwd}\u0000${req.command}`;
}
