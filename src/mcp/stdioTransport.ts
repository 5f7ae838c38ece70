// The stdio MCP transport: one JSON-RPC message per line on stdin, one per line on stdout. It is the
// SDK's stdio transport made strict about its input and tolerant of it at once:
// - every malformed line is answered with the JSON-RPC error the spec names (-32700 for a line that
//   is not JSON, -32600 for JSON that is not one valid message: a batch array, a number, a wrong
//   `jsonrpc`, a bad id or params) and the session goes on (the SDK answered nothing, so a client
//   waited for its own timeout);
// - a line longer than MAX_MESSAGE_BYTES is not kept (only its first bytes, to find its id): it is
//   answered with an error and the session goes on (the SDK closed the transport, killing every job);
// - nothing reaches the server before `initialize`: any other request is refused (a `ping` excepted),
//   so no command runs for a client that has not said who it is.
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The longest line read (the SDK's own read-buffer cap); a longer one is answered with an error. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Bytes of an oversized line kept to find its id. */
const ID_SCAN_BYTES = 64 * 1024;
/** Issues named in an invalid-request message at most. */
const MAX_ISSUES = 3;

export const TRANSPORT_MESSAGES = {
  parseError: (why: string) => `Parse error: the line is not JSON (${why})`,
  batch: 'Invalid Request: JSON-RPC batches (arrays) are not accepted; send one message per line',
  notObject: 'Invalid Request: a JSON-RPC message is a JSON object',
  version: 'Invalid Request: "jsonrpc" must be "2.0"',
  invalid: (issues: string) => `Invalid Request: ${issues}`,
  tooLarge: (max: number) => `Invalid Request: the message is longer than ${max} bytes, this server's limit; it was not read`,
  notInitialized: (method: string) => `Invalid Request: "${method}" before "initialize"; the client must send "initialize" first`,
} as const;

function isRequestId(v: unknown): v is RequestId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/**
 * The top-level `id` of a JSON object's first bytes, when it can be read there (before any nested
 * value that is cut, or after it when it fits): enough for the usual `{"jsonrpc","id","method",…}`.
 */
export function leadingId(head: string): RequestId | null {
  let depth = 0;
  let i = 0;
  const n = head.length;
  while (i < n) {
    const c = head[i];
    if (c === '"') {
      // A string: a key at depth 1 is followed by a colon.
      let j = i + 1;
      while (j < n && head[j] !== '"') j += head[j] === '\\' ? 2 : 1;
      if (j >= n) return null;
      const key = head.slice(i + 1, j);
      i = j + 1;
      if (depth === 1) {
        const rest = /^\s*:\s*/.exec(head.slice(i, i + 64));
        if (rest && key === 'id') {
          const value = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.){0,256}")/.exec(head.slice(i + rest[0].length, i + rest[0].length + 300));
          if (!value) return null;
          try {
            const parsed = JSON.parse(value[1]) as unknown;
            return isRequestId(parsed) ? parsed : null;
          } catch {
            return null;
          }
        }
      }
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    i++;
  }
  return null;
}

function issuesOf(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  const issues = error.issues.slice(0, MAX_ISSUES).map((i) => `${i.path.length ? i.path.map(String).join('.') : 'message'}: ${i.message}`);
  return issues.join('; ') || 'not a JSON-RPC request, notification or response';
}

export class LineStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pieces: Buffer[] = [];
  private size = 0;
  /** The current line passed the limit: its bytes are counted, only its start is kept. */
  private head: Buffer | undefined;
  private initialized = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer | string): void => {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (;;) {
      const nl = b.indexOf(0x0a, start);
      this.add(b.subarray(start, nl === -1 ? b.length : nl));
      if (nl === -1) break;
      this.endLine();
      start = nl + 1;
    }
  };

  private readonly onError = (error: Error): void => {
    this.onerror?.(error);
  };

  async start(): Promise<void> {
    if (this.started) throw new Error('LineStdioServerTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pieces = [];
    this.head = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  private answerError(id: RequestId | null, code: number, message: string): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } }).catch(() => undefined);
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.head !== undefined) {
      this.size += piece.length;
      return;
    }
    if (this.size + piece.length > this.maxMessageBytes) {
      // The oversized line keeps its start only (stream chunks are not reused by Node, so views are kept).
      this.head = Buffer.from(Buffer.concat([...this.pieces, piece]).subarray(0, ID_SCAN_BYTES));
      this.pieces = [];
      this.size += piece.length;
      return;
    }
    this.pieces.push(piece);
    this.size += piece.length;
  }

  private endLine(): void {
    const head = this.head;
    const pieces = this.pieces;
    this.pieces = [];
    this.head = undefined;
    this.size = 0;
    if (head !== undefined) {
      this.answerError(leadingId(head.toString('utf8')), ErrorCode.InvalidRequest, TRANSPORT_MESSAGES.tooLarge(this.maxMessageBytes));
      return;
    }
    const line = (pieces.length === 1 ? pieces[0] : Buffer.concat(pieces)).toString('utf8').replace(/\r$/, '');
    this.handleLine(line);
  }

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.answerError(null, ErrorCode.ParseError, TRANSPORT_MESSAGES.parseError(err instanceof Error ? err.message : String(err)));
      return;
    }
    if (Array.isArray(value)) {
      this.answerError(null, ErrorCode.InvalidRequest, TRANSPORT_MESSAGES.batch);
      return;
    }
    if (value === null || typeof value !== 'object') {
      this.answerError(null, ErrorCode.InvalidRequest, TRANSPORT_MESSAGES.notObject);
      return;
    }
    const raw = value as Record<string, unknown>;
    const id = isRequestId(raw.id) ? raw.id : null;
    if (raw.jsonrpc !== '2.0') {
      this.answerError(id, ErrorCode.InvalidRequest, TRANSPORT_MESSAGES.version);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.answerError(id, ErrorCode.InvalidRequest, TRANSPORT_MESSAGES.invalid(issuesOf(parsed.error)));
      return;
    }
    const message = parsed.data;
    if ('method' in message) {
      if (message.method === 'initialize' && 'id' in message) {
        this.initialized = true;
      } else if (!this.initialized && message.method !== 'ping') {
        // A notification before `initialize` has no answer; it is dropped.
        if ('id' in message) this.answerError(message.id, ErrorCode.InvalidRequest, TRANSPORT_MESSAGES.notInitialized(message.method));
        return;
      }
    }
    this.onmessage?.(message);
  }
}
