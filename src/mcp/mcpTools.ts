// The tools an MCP client sees: `bash` (the pipeline, same input schema as the LM tool),
// `bash_output` and `bash_kill` (the session's own background jobs) and `read_artifact` (the full
// output a result pointed at). Pure protocol logic over a backend; no transport, no `vscode`.
import * as fs from 'node:fs';
import { z } from 'zod';
import type { ArtifactStore, CallerInfo, JobInfo, JobManager, ToolResult, UpdateListener } from '../core/contracts';
import { bashInputJsonSchema } from '../core/input';
import { backgroundedLine } from '../core/output/results';
import type { McpCallerSession } from './mcpSession';
import { SESSION_CLOSED_MESSAGE } from './mcpSession';
import { capResultText, DEFAULT_MCP_RESULT_CHARS } from './resultCap';

export const MCP_TOOL_NAMES = { bash: 'bash', output: 'bash_output', kill: 'bash_kill', artifact: 'read_artifact' } as const;
/** `bash_output` waits at most this long (a client that wants longer calls again). */
export const MAX_WAIT_SECONDS = 600;
export const ARTIFACT_DEFAULT_LIMIT = 64 * 1024;
export const ARTIFACT_MAX_LIMIT = 1024 * 1024;
/**
 * A `bash` call whose client sent no progress token is answered by then, as a background job if it
 * still runs: such clients time a request out at 60 s (the SDK's default) and would lose the result.
 */
export const NO_PROGRESS_ANSWER_MS = 45_000;
/** `bash_kill` waits this long for the job's processes to be gone before answering. */
const KILL_SETTLE_MS = 5000;

export const MCP_MESSAGES = {
  unknownJob: (id: string) => `No background job ${id} in this MCP session.`,
  unknownArtifact: (id: string) => `No artifact ${id} in this MCP session (only outputs of this session's commands can be read).`,
  noJobs: 'Background jobs are not available on this server.',
  stillRunning: (id: string, seconds: number) => `Job ${id} is still running (${seconds} s so far).`,
  killed: (id: string) => `Job ${id} killed.`,
  alreadyEnded: (id: string, state: string) => `Job ${id} already ended (${state}).`,
  cancelled: (id: string) => `Job ${id} was killed.`,
  backgrounded: (id: string) => `Backgrounded as job ${id}.`,
  readJobWith: (id: string) => `Read its output with bash_output {"job_id": "${id}"} (wait_seconds to wait for the end); stop it with bash_kill.`,
  invalid: (tool: string, issues: string) => `Validation failed for tool "${tool}":\n${issues}`,
  artifactFooter: (id: string, from: number, to: number, total: number) =>
    to >= total
      ? `[artifact://${id}: bytes ${from}-${to} of ${total}, end of file]`
      : `[artifact://${id}: bytes ${from}-${to} of ${total}; continue with offset ${to}]`,
} as const;

/** What the tools run on: the extension's pipeline and stores, or the CLI's. */
/** `editor`: the extension's server (dialogs, VS Code terminals); `stdio`: `agent-bash mcp` (no person to ask). */
export type McpRoute = 'editor' | 'stdio';

export interface McpBackend {
  run(input: unknown, opts: { signal: AbortSignal; onUpdate?: UpdateListener; caller: CallerInfo; backgroundAfterMs?: number }): Promise<ToolResult>;
  jobs?: JobManager;
  artifacts: ArtifactStore;
  asyncEnabled(): boolean;
  /** Characters a result's text may have at most (default DEFAULT_MCP_RESULT_CHARS). */
  maxResultChars?(): number;
  /** Which server this is, for the texts the client reads (default `editor`). */
  route?: McpRoute;
  /** When a call without a progress token is answered as a background job (default NO_PROGRESS_ANSWER_MS; tests shorten it). */
  noProgressAnswerMs?: number;
}

export interface McpToolCall {
  name: string;
  args: unknown;
  session: McpCallerSession;
  caller: CallerInfo;
  signal: AbortSignal;
  /** Present when the client asked for progress. */
  onProgress?: (tail: string) => void;
}

export interface McpToolResult {
  /** The SDK's result type is open (`_meta` and future fields). */
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError: boolean;
}

const jobIdShape = z.string().min(1).describe('the job id from the bash result (job-N)');

const outputSchema = z.strictObject({
  job_id: jobIdShape,
  wait_seconds: z
    .number()
    .min(0)
    .max(MAX_WAIT_SECONDS)
    .default(0)
    .describe(`wait up to this many seconds for the job to end (0: answer at once; at most ${MAX_WAIT_SECONDS})`),
});
const killSchema = z.strictObject({ job_id: jobIdShape });
/** `artifact://12` (as results and this schema show it) or `12`. */
export const ARTIFACT_ID_INPUT = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().replace(/^artifact:\/\//, '') : v),
  z.string().min(1),
);

const artifactSchema = z.strictObject({
  id: ARTIFACT_ID_INPUT.describe('the artifact to read: `artifact://<id>` as a result named it, or just `<id>`'),
  offset: z.number().int().min(0).default(0).describe('first byte to read'),
  limit: z.number().int().min(1).max(ARTIFACT_MAX_LIMIT).default(ARTIFACT_DEFAULT_LIMIT).describe('bytes to read at most'),
});

/** The `bash` tool's description, in the words of the route: the editor's server can ask a person, stdio cannot. */
export function bashDescription(route: McpRoute): string {
  const editor = route === 'editor';
  return (
    (editor
      ? 'Runs one bash command line through Agent Bash and returns its output, wall time and exit code; the user watches it in a VS Code terminal. '
      : 'Runs one bash command line through Agent Bash on this machine and returns its output, wall time and exit code. ') +
    'Set `cwd` instead of `cd`, pass multi-line or quote-heavy values through `env`. The command times out after `timeout` SECONDS, not milliseconds (default 300, clamped to 1-3600; 0 disables the deadline); a call that reaches its timeout is an error result saying so. ' +
    'A result is at most about 38,000 characters (head and tail kept; in output too long to show whole, long lines keep their start and end); a footer naming `artifact://<id>` means the full output can be read with read_artifact. ' +
    (editor
      ? '`description` (optional) says in a few words what the command does; the user sees it in the approval dialog, the terminal and the history. '
      : '`description` (optional) says in a few words what the command does. ') +
    "Every command is checked against the user's allow/prompt/deny rules; a denied command does not run and returns an error naming the rule; " +
    (editor
      ? "a prompted one waits for the user's answer. "
      : 'this server cannot ask a person, so a command that needs approval is refused unless the server was started with --yes or a rule allows it. ') +
    '`async: true` (or `run_in_background: true`) runs it as a background job and returns its id at once: read it with bash_output, stop it with bash_kill.'
  );
}

/**
 * MCP clients that put their own wall time before a tool's result (Codex: "Wall time: …\nOutput:\n"):
 * their model would read two, so ours is left out for them.
 */
export const CLIENTS_THAT_TIME_CALLS: ReadonlySet<string> = new Set(['codex-mcp-client']);

/** The text without its `Wall time: N seconds` line (the notices after it keep their blank line). */
export function withoutWallTime(text: string): string {
  return text.replace(/\n\nWall time: \d+\.\d\d seconds(\n(?!\n))?/, (_m, next: string | undefined) => (next ? '\n\n' : ''));
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
}

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export function mcpToolList(backend: Pick<McpBackend, 'asyncEnabled' | 'jobs' | 'route'>): McpToolInfo[] {
  const tools: McpToolInfo[] = [
    { name: MCP_TOOL_NAMES.bash, description: bashDescription(backend.route ?? 'editor'), inputSchema: bashInputJsonSchema({ asyncEnabled: backend.asyncEnabled() }) },
    {
      name: MCP_TOOL_NAMES.artifact,
      description: 'Reads part of an artifact (the full output of a command whose result named artifact://<id>), by byte offset and limit.',
      inputSchema: jsonSchemaOf(artifactSchema),
    },
  ];
  if (backend.jobs) {
    tools.push(
      {
        name: MCP_TOOL_NAMES.output,
        description: "Reads a background job's output (started with bash `async: true`), optionally waiting for it to end; the final result has the exit code.",
        inputSchema: jsonSchemaOf(outputSchema),
      },
      { name: MCP_TOOL_NAMES.kill, description: 'Kills a background job and every process it started.', inputSchema: jsonSchemaOf(killSchema) },
    );
  }
  return tools;
}

function text(value: string, isError = false): McpToolResult {
  return { content: [{ type: 'text', text: value }], isError };
}

function fromToolResult(result: ToolResult): McpToolResult {
  return { content: result.content.map((c) => ({ type: 'text', text: c.text })), isError: result.isError === true };
}

/** The result with its text under the client's cap (resultCap.ts). */
async function capped(backend: McpBackend, session: McpCallerSession, result: McpToolResult): Promise<McpToolResult> {
  const cap = backend.maxResultChars?.() ?? DEFAULT_MCP_RESULT_CHARS;
  const parts = result.content.map((c) => c.text);
  const texts = await capResultText(parts, cap, backend.artifacts, (id) => session.ownsArtifact(id), (id) => session.ownArtifact(id));
  return texts === parts ? result : { ...result, content: texts.map((t) => ({ type: 'text', text: t })) };
}

function parse<T extends z.ZodType>(tool: string, schema: T, args: unknown): z.output<T> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `  - ${i.path.length ? i.path.map(String).join('.') : 'root'}: ${i.message}`).join('\n');
  throw new InvalidArgs(MCP_MESSAGES.invalid(tool, issues));
}

class InvalidArgs extends Error {}

/** Runs one tool call. Unknown tool names return undefined (the server answers with a protocol error). */
export async function callMcpTool(backend: McpBackend, call: McpToolCall): Promise<McpToolResult | undefined> {
  if (call.session.closed) return text(SESSION_CLOSED_MESSAGE, true);
  const result = await dispatch(backend, call);
  // Every answer under the cap, whatever produced it (a validation message quoting a huge input too).
  return result === undefined ? undefined : capped(backend, call.session, result);
}

async function dispatch(backend: McpBackend, call: McpToolCall): Promise<McpToolResult | undefined> {
  try {
    switch (call.name) {
      case MCP_TOOL_NAMES.bash:
        return await runBash(backend, call);
      case MCP_TOOL_NAMES.output:
        return await jobOutput(backend, call);
      case MCP_TOOL_NAMES.kill:
        return await killJob(backend, call);
      case MCP_TOOL_NAMES.artifact:
        return await readArtifact(backend, call);
      default:
        return undefined;
    }
  } catch (err) {
    if (err instanceof InvalidArgs) return text(err.message, true);
    throw err;
  }
}

async function runBash(backend: McpBackend, call: McpToolCall): Promise<McpToolResult> {
  const onProgress = call.onProgress;
  const result = await backend.run(call.args, {
    signal: call.signal,
    caller: call.caller,
    ...(onProgress ? { onUpdate: (u: ToolResult) => onProgress(u.content.map((c) => c.text).join('\n')) } : { backgroundAfterMs: backend.noProgressAnswerMs ?? NO_PROGRESS_ANSWER_MS }),
  });
  call.session.track(result);
  const out = fromToolResult(result);
  if (CLIENTS_THAT_TIME_CALLS.has(call.caller.name)) for (const c of out.content) c.text = withoutWallTime(c.text);
  // The pipeline's "delivered automatically" holds for the LM tool; here the client asks for it.
  const job = result.details.async;
  if (job?.state === 'running') {
    const delivered = backgroundedLine(job.jobId);
    for (const c of out.content) c.text = c.text.split(delivered).join(MCP_MESSAGES.backgrounded(job.jobId));
    out.content.push({ type: 'text', text: MCP_MESSAGES.readJobWith(job.jobId) });
  }
  return capped(backend, call.session, out);
}

function ownedJob(backend: McpBackend, session: McpCallerSession, id: string): { jobs: JobManager; job: JobInfo } {
  if (!backend.jobs) throw new InvalidArgs(MCP_MESSAGES.noJobs);
  const job = session.ownsJob(id) ? backend.jobs.get(id) : undefined;
  if (!job) throw new InvalidArgs(MCP_MESSAGES.unknownJob(id));
  return { jobs: backend.jobs, job };
}

async function jobOutput(backend: McpBackend, call: McpToolCall): Promise<McpToolResult> {
  const args = parse(MCP_TOOL_NAMES.output, outputSchema, call.args);
  const owned = ownedJob(backend, call.session, args.job_id);
  const jobs = owned.jobs;
  let job = owned.job;
  if (job.state === 'running' && args.wait_seconds > 0 && jobs.waitFor) {
    await jobs.waitFor(job.id, args.wait_seconds * 1000, call.signal);
    job = jobs.get(job.id) ?? job;
  }
  if (job.state === 'running') {
    const seconds = Math.round((Date.now() - job.startedAt) / 1000);
    const head = MCP_MESSAGES.stillRunning(job.id, seconds);
    return capped(backend, call.session, text(job.tail ? `${head}\n\nLatest output:\n${job.tail}` : head));
  }
  if (job.result) {
    call.session.track(job.result);
    const result = fromToolResult(job.result);
    if (job.state === 'cancelled') result.content.push({ type: 'text', text: MCP_MESSAGES.cancelled(job.id) });
    return capped(backend, call.session, { ...result, isError: result.isError || job.state !== 'completed' });
  }
  return text(MCP_MESSAGES.alreadyEnded(job.id, job.state), job.state !== 'completed');
}

async function killJob(backend: McpBackend, call: McpToolCall): Promise<McpToolResult> {
  const args = parse(MCP_TOOL_NAMES.kill, killSchema, call.args);
  const { jobs, job } = ownedJob(backend, call.session, args.job_id);
  if (job.state !== 'running' || !jobs.cancel(job.id, call.caller.name)) return text(MCP_MESSAGES.alreadyEnded(job.id, job.state));
  // Answer once the job's runner has settled, so "killed" means its processes are gone.
  await jobs.waitFor?.(job.id, KILL_SETTLE_MS, call.signal);
  return text(MCP_MESSAGES.killed(job.id));
}

async function readArtifact(backend: McpBackend, call: McpToolCall): Promise<McpToolResult> {
  const args = parse(MCP_TOOL_NAMES.artifact, artifactSchema, call.args);
  const file = call.session.ownsArtifact(args.id) ? backend.artifacts.pathOf(args.id) : undefined;
  if (!file) return text(MCP_MESSAGES.unknownArtifact(args.id), true);
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch {
    return text(MCP_MESSAGES.unknownArtifact(args.id), true);
  }
  try {
    const total = (await handle.stat()).size;
    const from = Math.min(args.offset, total);
    const buffer = Buffer.alloc(Math.min(args.limit, total - from));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    const body = buffer.subarray(0, bytesRead).toString('utf8');
    // A slice is cut to what the client takes, with the footer saying where to continue.
    const cap = backend.maxResultChars?.() ?? DEFAULT_MCP_RESULT_CHARS;
    const footer = (to: number): string => MCP_MESSAGES.artifactFooter(args.id, from, to, total);
    let shown = body;
    let to = from + bytesRead;
    if (shown.length + footer(to).length + 1 > cap) {
      // Room for the longer footer ("continue with offset N", N at most the size) and its newline.
      const reserve = MCP_MESSAGES.artifactFooter(args.id, from, total - 1, total).length + 1;
      let end = Math.max(0, cap - reserve);
      // A cut between the two halves of a surrogate pair would leave half a character.
      const last = shown.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end -= 1;
      shown = shown.slice(0, end);
      to = from + Buffer.byteLength(shown, 'utf8');
    }
    return text(`${shown}${shown.endsWith('\n') || shown === '' ? '' : '\n'}${footer(to)}`);
  } finally {
    await handle.close();
  }
}
