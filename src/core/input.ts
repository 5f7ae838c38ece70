// The bash tool's input: one zod schema is the single source of the type, the validation and the
// JSON schema the language model sees.
import { z } from 'zod';
import { ToolError } from './errors';
import { DEFAULT_TIMEOUT_SEC } from './timeout';

export const TOOL_NAME = 'bash';
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const ASYNC_DISABLED_MESSAGE =
  'Async bash execution is disabled. Enable async.enabled to use async mode.';
export const VALIDATION_PREFIX = `Validation failed for tool "${TOOL_NAME}":`;
export const EMPTY_COMMAND_MESSAGE = 'command must be a non-empty string';
/** A `description` longer than this is refused (it is a label, not a document). */
export const DESCRIPTION_MAX_CHARS = 500;
/** Raw JSON in the bad-JSON message is cut here so a huge payload can't flood the reply. */
export const RAW_JSON_PREVIEW_CHARS = 512;

/**
 * The longest command line that runs on every route: a fresh shell gets it as one argument, and Linux
 * refuses an argument over 128 KiB (MAX_ARG_STRLEN, E2BIG); the rest is room for the shell's wrapper.
 * The persistent shell could take more, but one limit for every route keeps a call's fate independent
 * of which shell it lands in.
 */
export const COMMAND_MAX_BYTES = 100 * 1024;
/** One `env` entry (`NAME=value`) at most: the same kernel limit on each environment string. */
export const ENV_ENTRY_MAX_BYTES = 100 * 1024;
/** The command and every `env` entry together at most (well under the kernel's total for exec). */
export const COMMAND_AND_ENV_MAX_BYTES = 1024 * 1024;

export const INPUT_LIMIT_MESSAGES = {
  commandNul: 'command holds a NUL byte (\\0), which no shell command line can carry; nothing was run',
  envNul: (key: string) => `env ${key} holds a NUL byte (\\0), which no environment variable can carry; nothing was run`,
  commandTooLong: (bytes: number) =>
    `command is ${bytes} bytes; at most ${COMMAND_MAX_BYTES} bytes can run (the kernel refuses a longer argument); write a long script to a file and run the file; nothing was run`,
  envTooLong: (key: string, bytes: number) =>
    `env ${key} is ${bytes} bytes with its name; at most ${ENV_ENTRY_MAX_BYTES} bytes can be passed in one variable (the kernel refuses a longer one); pass long data in a file; nothing was run`,
  tooLarge: (bytes: number) =>
    `command and env are ${bytes} bytes together; at most ${COMMAND_AND_ENV_MAX_BYTES} bytes can be passed; pass long data in a file; nothing was run`,
} as const;

/** The kernel's limits and NUL, checked the same way for every route (a fresh shell or a persistent one). */
function checkSizes(input: { command: string; env?: Record<string, string> }): void {
  if (input.command.includes('\0')) throw new ToolError(INPUT_LIMIT_MESSAGES.commandNul);
  let total = Buffer.byteLength(input.command, 'utf8');
  if (total > COMMAND_MAX_BYTES) throw new ToolError(INPUT_LIMIT_MESSAGES.commandTooLong(total));
  for (const [key, value] of Object.entries(input.env ?? {})) {
    if (value.includes('\0')) throw new ToolError(INPUT_LIMIT_MESSAGES.envNul(key));
    const entry = Buffer.byteLength(key, 'utf8') + 1 + Buffer.byteLength(value, 'utf8');
    if (entry > ENV_ENTRY_MAX_BYTES) throw new ToolError(INPUT_LIMIT_MESSAGES.envTooLong(key, entry));
    total += entry;
  }
  if (total > COMMAND_AND_ENV_MAX_BYTES) throw new ToolError(INPUT_LIMIT_MESSAGES.tooLarge(total));
}

export function invalidEnvNameMessage(key: string): string {
  return `Invalid bash env name: ${key}`;
}

export const bashInputSchema = z.strictObject({
  command: z
    .string()
    .refine((s) => s.trim().length > 0, { message: EMPTY_COMMAND_MESSAGE })
    .describe('command to execute'),
  env: z.record(z.string(), z.string()).optional().describe('extra env vars'),
  timeout: z
    .number()
    .min(0)
    .refine((n) => Number.isFinite(n), { message: 'timeout must be a finite number' })
    .default(DEFAULT_TIMEOUT_SEC)
    .describe('timeout in seconds; 0 disables the command deadline; nonzero values are clamped to 1-3600'),
  cwd: z.string().optional().describe('working directory'),
  description: z
    .string()
    .max(DESCRIPTION_MAX_CHARS)
    .optional()
    .describe('a few words on what the command does, shown to the user beside the command'),
  pty: z.boolean().default(false).describe('run in pty mode'),
  async: z.boolean().default(false).describe('run in background'),
  sandbox: z
    .enum(['off', 'write'])
    .optional()
    .describe('"write" asks the user to run it with write access inside the sandbox (an auto-approved read runs read-only): use it only to retry a command the read-only fence refused. "off" runs the command outside the OS sandbox (the user is asked to approve); use it only to retry a command the sandbox refused'),
});

/** The validated input (defaults applied; an empty `env` is removed). */
export type BashInput = z.output<typeof bashInputSchema>;

/**
 * JSON schema for the language-model tool declaration. `async` is only advertised when async is
 * enabled; the parser still accepts the key either way so the explicit refusal is reached.
 */
export function bashInputJsonSchema(opts: { asyncEnabled: boolean }): Record<string, unknown> {
  const schema = z.toJSONSchema(bashInputSchema, { io: 'input' }) as Record<string, unknown>;
  if (!opts.asyncEnabled) {
    const props = schema.properties as Record<string, unknown> | undefined;
    if (props) delete props.async;
  }
  return schema;
}

const NON_STRING_OPTIONALS = ['env', 'timeout', 'pty', 'async', 'sandbox'] as const;

/**
 * Claude Code's Bash tool calls background runs `run_in_background`; models trained on it send that
 * key. It means `async` (which wins when both are given); it is accepted, not advertised.
 */
const ASYNC_ALIAS = 'run_in_background';

/**
 * Models often send `null` for "not given", numbers as strings and booleans as strings. Undo those
 * before validating so a harmless slip isn't a failed call (pi-ai's validator does the same).
 */
function normalize(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  if (Object.hasOwn(out, ASYNC_ALIAS)) {
    if (!Object.hasOwn(out, 'async') || out.async === null) out.async = out[ASYNC_ALIAS];
    delete out[ASYNC_ALIAS];
  }
  for (const key of ['env', 'timeout', 'cwd', 'pty', 'async', 'sandbox', 'description']) {
    if (out[key] === null) delete out[key];
  }
  for (const key of NON_STRING_OPTIONALS) {
    if (out[key] === 'null') delete out[key];
  }
  if (typeof out.timeout === 'string' && out.timeout.trim() !== '' && Number.isFinite(Number(out.timeout))) {
    out.timeout = Number(out.timeout);
  }
  for (const key of ['pty', 'async']) {
    if (out[key] === 'true') out[key] = true;
    else if (out[key] === 'false') out[key] = false;
  }
  return out;
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'root';
      return `  - ${where}: ${issue.message}`;
    })
    .join('\n');
}

function prettyJson(value: unknown): string {
  try {
    // `undefined`, functions and symbols stringify to undefined, which the lib's `string` type hides.
    return (JSON.stringify(value, null, 2) as string | undefined) ?? String(value);
  } catch {
    return String(value);
  }
}

export function validationFailedMessage(error: z.ZodError, received: unknown): string {
  return `${VALIDATION_PREFIX}\n${formatIssues(error)}\n\nReceived arguments:\n${prettyJson(received)}`;
}

export function invalidJsonMessage(parseError: string, rawJson: string): string {
  const preview =
    rawJson.length > RAW_JSON_PREVIEW_CHARS ? `${rawJson.slice(0, RAW_JSON_PREVIEW_CHARS)}…` : rawJson;
  return `${VALIDATION_PREFIX} Tool call arguments are not valid JSON.\nParse Error: ${parseError}\nRaw JSON: ${preview}`;
}

/**
 * Validates tool arguments (an object, or its JSON text). Throws `ToolError` with the exact
 * user-facing message on any failure; never returns a partially valid input.
 */
export function parseBashInput(raw: unknown, opts: { asyncEnabled: boolean }): BashInput {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch (err) {
      throw new ToolError(invalidJsonMessage(err instanceof Error ? err.message : String(err), raw as string));
    }
  }
  const candidate =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? normalize(value as Record<string, unknown>)
      : value;
  const parsed = bashInputSchema.safeParse(candidate);
  if (!parsed.success) throw new ToolError(validationFailedMessage(parsed.error, value));

  const input = parsed.data;
  if (input.env) {
    for (const key of Object.keys(input.env)) {
      if (!ENV_NAME_PATTERN.test(key)) throw new ToolError(invalidEnvNameMessage(key));
    }
    // An empty object means "no overrides"; dropping it keeps every later stage to one check.
    if (Object.keys(input.env).length === 0) delete input.env;
  }
  checkSizes(input);
  if (input.async && !opts.asyncEnabled) throw new ToolError(ASYNC_DISABLED_MESSAGE);
  return input;
}
