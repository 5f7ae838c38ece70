// One rule for every client (issue 33): a call that ends in its own timeout is answered as timed out,
// whether or not the client sent a progress token; only a call whose timeout is longer than the
// no-token threshold may become a background job. Through the real stdio server and SDK client.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, connectStdio, textOf } from './stdioHelpers';

describe('mcp stdio: timeouts with and without a progress token', function () {
  this.timeout(300_000);
  let tmp: string;
  let client: Client;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-timeout-'));
    const rules = path.join(tmp, 'rules.json');
    writeFileSync(rules, JSON.stringify(['echo *', 'sleep *', 'printf *'].map((match) => ({ match, approval: 'allow' }))));
    ({ client } = await connectStdio(['--rules', rules, '--cwd', tmp], tmp));
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when before() failed ahead of connecting
    await client?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  for (const token of [false, true]) {
    const how = token ? 'with a progress token' : 'without a progress token';
    const options = token ? { onprogress: () => undefined } : {};

    it(`${how}: a call that reaches its timeout is an error result saying so, with the output so far and the time`, async () => {
      const r = await callTool(client, 'bash', { command: 'echo start; sleep 20; echo end', timeout: 3 }, options);
      assert.equal(r.isError, true, textOf(r));
      assert.match(textOf(r), /^\[Command timed out after 3 seconds\]\nstart\n\nWall time: \d+\.\d\d seconds$/);
      assert.doesNotMatch(textOf(r), /Backgrounded|job-/);
    });

    it(`${how}: a call with a 1 s timeout is answered in the foreground (its output, or its timeout), never as a job`, async () => {
      // A shell that a timeout killed is started again first, so the 1 s are the command's own.
      await callTool(client, 'bash', { command: 'echo warm' }, options);
      const r = await callTool(client, 'bash', { command: 'echo hi', timeout: 1 }, options);
      assert.doesNotMatch(textOf(r), /Backgrounded|job-/);
      // A loaded machine may take the whole second: then it is a timeout, said as one.
      if (r.isError) assert.match(textOf(r), /^\[Command timed out after 1 seconds\]\n(?:hi\n)?\nWall time: \d+\.\d\d seconds$/);
      else assert.match(textOf(r), /^hi\n\nWall time: \d+\.\d\d seconds$/);
    });
  }
});
