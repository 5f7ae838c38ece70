// Texts that fit the route (issue 33): over stdio nobody watches a VS Code terminal and nobody can be
// asked, so the tool description, the keep-alive notifications and the refusal say so; a client that
// puts its own wall time before a result (Codex) does not get a second one from us.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { needsApprovalMessage } from '../../../src/cli/mcp';
import { bashDescription, withoutWallTime } from '../../../src/mcp/mcpTools';
import { keepAliveMessage } from '../../../src/mcp/progressReporter';
import { callTool, connectStdio, textOf } from './stdioHelpers';

describe('mcp: texts for the route', function () {
  this.timeout(300_000);

  it('the descriptions: the editor speaks of its terminal and dialog, stdio of a server that cannot ask', () => {
    const editor = bashDescription('editor');
    const stdio = bashDescription('stdio');
    assert.match(editor, /the user watches it in a VS Code terminal\. /);
    assert.match(editor, /a prompted one waits for the user's answer\. /);
    assert.doesNotMatch(stdio, /VS Code|terminal|dialog|waits for the user/);
    assert.match(stdio, /this server cannot ask a person, so a command that needs approval is refused unless the server was started with --yes or a rule allows it\. /);
    assert.equal(keepAliveMessage(12), "Still running after 12 s (waiting for output or for the user's approval).");
    assert.equal(keepAliveMessage(12, false), 'Still running after 12 s (no new output).');
  });

  it('withoutWallTime drops only the wall time line, keeping the blank line before what follows', () => {
    assert.equal(withoutWallTime('a\nb\n\nWall time: 0.01 seconds'), 'a\nb');
    assert.equal(withoutWallTime('a\n\nWall time: 0.01 seconds\n\nCommand exited with code 3'), 'a\n\nCommand exited with code 3');
    assert.equal(withoutWallTime('a\n\nWall time: 12.50 seconds\n(output truncated)\n\n[Showing lines 1-2 of 9]'), 'a\n\n(output truncated)\n\n[Showing lines 1-2 of 9]');
    assert.equal(withoutWallTime('Wall time: 1.00 seconds in the output\n\nWall time: 0.01 seconds'), 'Wall time: 1.00 seconds in the output');
  });

  describe('over stdio, with the SDK client', () => {
    let tmp: string;
    let client: Client;
    let codex: Client;

    before(async () => {
      tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-texts-'));
      const rules = path.join(tmp, 'rules.json');
      writeFileSync(rules, JSON.stringify(['printf *', 'sleep *', 'exit *', '[ *'].map((match) => ({ match, approval: 'allow' }))));
      ({ client } = await connectStdio(['--rules', rules, '--cwd', tmp], tmp));
      // The name Codex gives itself in `initialize`.
      ({ client: codex } = await connectStdio(['--rules', rules, '--cwd', tmp], tmp, 'codex-mcp-client'));
    });
    after(async () => {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when before() failed ahead of connecting
      await Promise.all([client?.close(), codex?.close()]);
      rmSync(tmp, { recursive: true, force: true });
    });

    it('lists bash with the stdio description', async () => {
      const { tools } = await client.listTools();
      assert.equal(tools.find((t) => t.name === 'bash')?.description, bashDescription('stdio'));
    });

    it('refuses a command that needs approval in plain words, and runs nothing', async () => {
      const marker = path.join(tmp, 'asked');
      const r = await callTool(client, 'bash', { command: `touch ${marker}` });
      assert.equal(r.isError, true);
      assert.equal(textOf(r), needsApprovalMessage(`\`touch ${marker}\` in segment 1 matched no rule`));
      assert.match(textOf(r), /^Command refused: it needs approval \(.*\), and this server cannot ask a person; start it with --yes /);
    });

    it('a silent command gets the stdio keep-alive, which speaks of no approval', async () => {
      // The command stays silent until the first keep-alive has arrived (then the test lets it end):
      // no guess of when the keep-alive comes on a busy machine.
      const messages: string[] = [];
      const stop = path.join(tmp, 'keep-alive-seen');
      const onprogress = (p: { message?: string }): void => {
        messages.push(p.message ?? '');
        if (p.message?.startsWith('Still running')) writeFileSync(stop, '');
      };
      // No keep-alive within 60 s: the command times out and the result is an error, said below.
      const r = await callTool(client, 'bash', { command: `until [ -e ${stop} ]; do sleep 0.2; done; printf done`, timeout: 60 }, { onprogress, resetTimeoutOnProgress: true });
      assert.equal(r.isError, false, textOf(r));
      const keepAlives = messages.filter((m) => m.startsWith('Still running'));
      assert.ok(keepAlives.length >= 1, JSON.stringify(messages));
      for (const m of keepAlives) assert.match(m, /^Still running after \d+ s \(no new output\)\.$/);
    });

    it('Codex gets no wall time line of ours (it adds its own); another client gets one', async () => {
      const command = "printf 'a\\nb\\n'; exit 3";
      const theirs = await callTool(codex, 'bash', { command });
      assert.equal(theirs.isError, true);
      assert.equal(textOf(theirs), 'a\nb\n\nCommand exited with code 3');
      const ours = await callTool(client, 'bash', { command });
      assert.match(textOf(ours), /^a\nb\n\nWall time: \d+\.\d\d seconds\n\nCommand exited with code 3$/);
    });
  });
});
