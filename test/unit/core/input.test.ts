import * as assert from 'node:assert/strict';
import {
  ASYNC_DISABLED_MESSAGE,
  bashInputJsonSchema,
  COMMAND_AND_ENV_MAX_BYTES,
  COMMAND_MAX_BYTES,
  ENV_ENTRY_MAX_BYTES,
  INPUT_LIMIT_MESSAGES,
  parseBashInput,
  VALIDATION_PREFIX,
} from '../../../src/core/input';
import { ToolError } from '../../../src/core/errors';

const on = { asyncEnabled: true };
const off = { asyncEnabled: false };

function errorOf(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ToolError, `expected ToolError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a throw');
}

describe('core/input parseBashInput', () => {
  it('applies defaults: timeout 300, pty false, async false', () => {
    assert.deepEqual(parseBashInput({ command: 'ls' }, on), { command: 'ls', timeout: 300, pty: false, async: false });
  });

  it('keeps every field when given', () => {
    const v = parseBashInput({ command: 'ls', env: { A: '1' }, timeout: 0, cwd: 'src', pty: true, async: true }, on);
    assert.deepEqual(v, { command: 'ls', env: { A: '1' }, timeout: 0, cwd: 'src', pty: true, async: true });
  });

  it('rejects a missing, empty or blank command with the validation prefix', () => {
    for (const raw of [{}, { command: '' }, { command: '   ' }, { command: 3 }]) {
      const e = errorOf(() => parseBashInput(raw, on));
      assert.ok(e.message.startsWith(`${VALIDATION_PREFIX}\n  - command: `), e.message);
      assert.match(e.message, /\n\nReceived arguments:\n/);
    }
  });

  it('names the empty-command rule', () => {
    assert.match(errorOf(() => parseBashInput({ command: '' }, on)).message, /command must be a non-empty string/);
  });

  it('rejects unknown keys', () => {
    const e = errorOf(() => parseBashInput({ command: 'ls', shell: 'zsh' }, on));
    assert.ok(e.message.startsWith(VALIDATION_PREFIX));
    assert.match(e.message, /shell/);
  });

  it('rejects a blank timeout instead of reading it as 0 (no deadline), naming the argument', () => {
    for (const timeout of [' ', '', 'abc']) {
      const message = errorOf(() => parseBashInput({ command: 'ls', timeout }, on)).message;
      assert.equal(message.split('\n')[1], '  - timeout: Invalid input: expected number, received string');
    }
    const negative = errorOf(() => parseBashInput({ command: 'ls', timeout: -1 }, on)).message;
    assert.equal(negative.split('\n')[1], '  - timeout: Too small: expected number to be >=0');
  });

  it('rejects a negative timeout and a non-number timeout', () => {
    assert.ok(errorOf(() => parseBashInput({ command: 'ls', timeout: -1 }, on)).message.includes('  - timeout: '));
    assert.ok(errorOf(() => parseBashInput({ command: 'ls', timeout: 'soon' }, on)).message.includes('  - timeout: '));
  });

  it('rejects non-string env values', () => {
    assert.ok(errorOf(() => parseBashInput({ command: 'ls', env: { A: 1 } }, on)).message.startsWith(VALIDATION_PREFIX));
  });

  it('rejects a bad env name with the exact message', () => {
    for (const key of ['1A', 'A-B', 'A B', '', 'É']) {
      assert.equal(errorOf(() => parseBashInput({ command: 'ls', env: { [key]: 'x' } }, on)).message, `Invalid bash env name: ${key}`);
    }
  });

  it('accepts good env names', () => {
    assert.deepEqual(parseBashInput({ command: 'ls', env: { _a: '1', A9: '2' } }, on).env, { _a: '1', A9: '2' });
  });

  it('treats an empty env as absent', () => {
    assert.equal('env' in parseBashInput({ command: 'ls', env: {} }, on), false);
  });

  it('refuses async when async is disabled, with the exact message', () => {
    assert.equal(errorOf(() => parseBashInput({ command: 'ls', async: true }, off)).message, ASYNC_DISABLED_MESSAGE);
    assert.equal(ASYNC_DISABLED_MESSAGE, 'Async bash execution is disabled. Enable async.enabled to use async mode.');
  });

  it('accepts async:false while async is disabled', () => {
    assert.equal(parseBashInput({ command: 'ls', async: false }, off).async, false);
  });

  it('normalizes null, "null", numeric strings and boolean strings', () => {
    const v = parseBashInput({ command: 'ls', timeout: '60', pty: 'true', async: null, cwd: null, env: 'null' }, on);
    assert.deepEqual(v, { command: 'ls', timeout: 60, pty: true, async: false });
  });

  it('parses JSON text and reports bad JSON', () => {
    assert.equal(parseBashInput('{"command":"ls"}', on).command, 'ls');
    const e = errorOf(() => parseBashInput('{"command":', on));
    assert.ok(e.message.startsWith(`${VALIDATION_PREFIX} Tool call arguments are not valid JSON.\nParse Error: `), e.message);
    assert.match(e.message, /\nRaw JSON: \{"command":$/);
  });

  it('rejects non-objects', () => {
    assert.ok(errorOf(() => parseBashInput(null, on)).message.startsWith(VALIDATION_PREFIX));
    assert.ok(errorOf(() => parseBashInput(['ls'], on)).message.startsWith(VALIDATION_PREFIX));
  });
});

describe('core/input limits every route shares', () => {
  it('refuses a NUL in the command or in an env value, naming the variable', () => {
    assert.equal(errorOf(() => parseBashInput({ command: 'echo a\0b' }, on)).message, 'command holds a NUL byte (\\0), which no shell command line can carry; nothing was run');
    assert.equal(errorOf(() => parseBashInput({ command: 'echo "$X"', env: { OK: '1', X: 'a\0b' } }, on)).message, INPUT_LIMIT_MESSAGES.envNul('X'));
    assert.equal(INPUT_LIMIT_MESSAGES.envNul('X'), 'env X holds a NUL byte (\\0), which no environment variable can carry; nothing was run');
  });

  it('takes a command of exactly the limit and refuses one byte more, counting UTF-8 bytes', () => {
    const at = `echo ${'x'.repeat(COMMAND_MAX_BYTES - 5)}`;
    assert.equal(parseBashInput({ command: at }, on).command, at);
    assert.equal(errorOf(() => parseBashInput({ command: `${at}x` }, on)).message, INPUT_LIMIT_MESSAGES.commandTooLong(COMMAND_MAX_BYTES + 1));
    const wide = `echo ${'é'.repeat(COMMAND_MAX_BYTES / 2)}`;
    assert.equal(errorOf(() => parseBashInput({ command: wide }, on)).message, INPUT_LIMIT_MESSAGES.commandTooLong(5 + COMMAND_MAX_BYTES));
    assert.equal(
      INPUT_LIMIT_MESSAGES.commandTooLong(1048576),
      'command is 1048576 bytes; at most 102400 bytes can run (the kernel refuses a longer argument); write a long script to a file and run the file; nothing was run',
    );
  });

  it('refuses an env entry over the limit and a command with env over the total', () => {
    const value = 'v'.repeat(ENV_ENTRY_MAX_BYTES - 2);
    assert.deepEqual(parseBashInput({ command: 'true', env: { A: value } }, on).env, { A: value });
    assert.equal(errorOf(() => parseBashInput({ command: 'true', env: { AB: value } }, on)).message, INPUT_LIMIT_MESSAGES.envTooLong('AB', ENV_ENTRY_MAX_BYTES + 1));
    const env = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`V${String.fromCharCode(65 + i)}`, 'v'.repeat(ENV_ENTRY_MAX_BYTES - 3)]));
    assert.equal(errorOf(() => parseBashInput({ command: 'true', env }, on)).message, INPUT_LIMIT_MESSAGES.tooLarge(4 + 11 * ENV_ENTRY_MAX_BYTES));
    assert.ok(4 + 11 * ENV_ENTRY_MAX_BYTES > COMMAND_AND_ENV_MAX_BYTES);
  });
});

describe('core/input bashInputJsonSchema', () => {
  it('describes every field, requires only command and forbids extra keys', () => {
    const s = bashInputJsonSchema(on) as { properties: Record<string, { description?: string }>; required: string[]; additionalProperties: boolean };
    assert.deepEqual(Object.keys(s.properties).sort(), ['async', 'command', 'cwd', 'description', 'env', 'pty', 'sandbox', 'timeout']);
    assert.deepEqual(s.required, ['command']);
    assert.equal(s.additionalProperties, false);
    assert.equal(s.properties.command.description, 'command to execute');
  });

  it('hides async when async is disabled', () => {
    const s = bashInputJsonSchema(off) as { properties: Record<string, unknown> };
    assert.equal('async' in s.properties, false);
  });
});
