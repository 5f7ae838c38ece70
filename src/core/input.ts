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
  if (input.async && !opts.asyncEnabled) throw new ToolError(ASYNC_DISABLED_MESSAGE);
  return input;
}
