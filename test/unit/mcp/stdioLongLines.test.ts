// Long lines over MCP (issue 33): a line is cut only when the whole result would not fit, and then
// its start and its end stay. Through the real stdio server and SDK client.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MCP_USAGE } from '../../../src/cli/mcp';
import { DEFAULT_MCP_RESULT_CHARS } from '../../../src/mcp/resultCap';
import { callTool, CLI, connectStdio, textOf } from './stdioHelpers';

describe('mcp stdio: long lines', function () {
  this.timeout(300_000);
  let tmp: string;
  let client: Client;
  let narrow: Client;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-lines-'));
    const rules = path.join(tmp, 'rules.json');
    writeFileSync(rules, JSON.stringify(['cat *', 'seq *'].map((match) => ({ match, approval: 'allow' }))));
    // A 6.6 KB one-line JSON document whose last field matters.
    const json = `{"items":[${Array.from({ length: 600 }, (_, i) => `"v${i}"`).join(',')}],"status":"the-last-field"}`;
    writeFileSync(path.join(tmp, 'one-line.json'), `${json}\n`);
    // 1.69 MB on one line, with a marker at each end.
    writeFileSync(path.join(tmp, 'huge-line.txt'), `HEAD-MARK${'y'.repeat(1_690_000)}TAIL-MARK\n`);
    ({ client } = await connectStdio(['--rules', rules, '--cwd', tmp], tmp));
    ({ client: narrow } = await connectStdio(['--rules', rules, '--cwd', tmp, '--max-line-bytes', '40'], tmp, 'narrow-client'));
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when before() failed ahead of connecting
    await Promise.all([client?.close(), narrow?.close()]);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('returns a 6.6 KB one-line JSON file whole, its last field included', async () => {
    const r = await callTool(client, 'bash', { command: 'cat one-line.json' });
    assert.equal(r.isError, false, textOf(r));
    assert.match(textOf(r), /^\{"items":\["v0",.*"v599"\],"status":"the-last-field"\}\n\nWall time: \d+\.\d\d seconds$/);
  });

  it('returns about the whole budget of a 1.69 MB single line, its start and its end', async () => {
    const r = await callTool(client, 'bash', { command: 'cat huge-line.txt' });
    const text = textOf(r);
    assert.ok(text.length > DEFAULT_MCP_RESULT_CHARS - 1000 && text.length <= DEFAULT_MCP_RESULT_CHARS, `${text.length} characters`);
    assert.match(text, /^HEAD-MARKy+\n/);
    assert.match(text, /\ny+TAIL-MARK\n/);
    assert.match(text, /Read artifact:\/\/\d+ for full output/);
    assert.doesNotMatch(text, /Long lines cut/);
  });

  it('--max-line-bytes sets the cap for lines of output too long to show whole', async () => {
    const r = await callTool(narrow, 'bash', { command: "seq -f '%06g abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ' 1 5000" });
    const text = textOf(r);
    // 40 bytes: 19 of the start, …, 18 of the end.
    assert.match(text, /\n005000 abcdefghijkl…23456789ABCDEFGHIJ\n/);
    assert.match(text, /^000001 abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ\n/);
    assert.match(text, /Long lines cut to 40 bytes, start and end kept/);
  });

  it('--max-line-bytes takes digits only: anything else exits 2 naming the value', () => {
    const r = spawnSync(process.execPath, [CLI, 'mcp', '--max-line-bytes', 'wide'], { encoding: 'utf8', input: '' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, `agent-bash mcp: --max-line-bytes wide is not a number of bytes (digits; 0 means no limit)\n${MCP_USAGE}\n`);
  });
});
