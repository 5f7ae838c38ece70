// Limits a client meets the same way on every route (issue 33): a NUL in an env value or a command
// over the kernel's argument limit is refused with one clear error whether the call would run in the
// persistent shell (foreground) or a fresh one (a background job), and nothing runs; every tool
// result, read_artifact's default slice included, stays under the character cap.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { COMMAND_MAX_BYTES, INPUT_LIMIT_MESSAGES } from '../../../src/core/input';
import { DEFAULT_MCP_RESULT_CHARS } from '../../../src/mcp/resultCap';
import { callTool, connectStdio, textOf } from './stdioHelpers';

describe('mcp stdio: limits on every route', function () {
  this.timeout(300_000);
  let tmp: string;
  let client: Client;
  /** Approves prompt-level commands (a command over 64 KiB cannot be analysed, so it asks). */
  let yes: Client;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-limits-'));
    const rules = path.join(tmp, 'rules.json');
    writeFileSync(rules, JSON.stringify(['touch *', 'seq *', 'echo *'].map((match) => ({ match, approval: 'allow' }))));
    ({ client } = await connectStdio(['--rules', rules, '--cwd', tmp], tmp));
    ({ client: yes } = await connectStdio(['--rules', rules, '--yes', '--cwd', tmp], tmp, 'yes-client'));
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when before() failed ahead of connecting
    await Promise.all([client?.close(), yes?.close()]);
    rmSync(tmp, { recursive: true, force: true });
  });

  for (const [route, extra] of [
    ['the persistent shell', {}],
    ['a fresh shell (background job)', { async: true }],
  ] as const) {
    it(`${route}: a NUL in an env value is refused, naming the variable, and nothing runs`, async () => {
      const marker = path.join(tmp, `nul-${Object.keys(extra).length}`);
      const r = await callTool(client, 'bash', { command: `touch ${marker}`, env: { GOOD: 'x', BAD: 'a\0b' }, ...extra });
      assert.equal(r.isError, true);
      assert.equal(textOf(r), INPUT_LIMIT_MESSAGES.envNul('BAD'));
      assert.equal(existsSync(marker), false);
    });

    it(`${route}: a 1 MiB command is refused with its size and the limit, and nothing runs`, async () => {
      const marker = path.join(tmp, `big-${Object.keys(extra).length}`);
      const command = `touch ${marker} # ${'x'.repeat(1024 * 1024)}`;
      const r = await callTool(yes, 'bash', { command, ...extra });
      assert.equal(r.isError, true);
      assert.equal(textOf(r), INPUT_LIMIT_MESSAGES.commandTooLong(Buffer.byteLength(command)));
      assert.equal(existsSync(marker), false);
      // Just under the limit runs on this route.
      const fits = `touch ${marker} # ${'x'.repeat(COMMAND_MAX_BYTES - marker.length - 9)}`;
      assert.equal(Buffer.byteLength(fits), COMMAND_MAX_BYTES);
      const ran = await callTool(yes, 'bash', { command: fits, ...extra });
      assert.equal(ran.isError, false, textOf(ran).slice(0, 500));
      const job = /job-\d+/.exec(textOf(ran))?.[0];
      if (job) await callTool(yes, 'bash_output', { job_id: job, wait_seconds: 120 });
      assert.equal(existsSync(marker), true);
    });
  }

  it('read_artifact with the default limit stays under the cap and says where to go on', async () => {
    const long = await callTool(client, 'bash', { command: 'seq 1 30000' });
    const id = /Read artifact:\/\/(\d+) for full output/.exec(textOf(long))?.[1];
    assert.ok(id, textOf(long).slice(-300));
    const r = await callTool(client, 'read_artifact', { id });
    const text = textOf(r);
    assert.ok(text.length <= DEFAULT_MCP_RESULT_CHARS, `${text.length} characters`);
    const to = /; continue with offset (\d+)\]$/.exec(text)?.[1];
    assert.ok(to, text.slice(-200));
    const body = Array.from({ length: 30000 }, (_, i) => `${i + 1}\n`).join('').slice(0, Number(to));
    // A slice cut inside a line gets a newline before its footer.
    assert.equal(text, `${body}${body.endsWith('\n') ? '' : '\n'}[artifact://${id}: bytes 0-${to} of 168894; continue with offset ${to}]`);
  });
});
