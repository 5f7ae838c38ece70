// Over the stdio MCP server (`node dist/cli.js mcp --yes`), one client's calls share a persistent
// shell: an approved call that defines `ls() { echo POISONED; }`, an alias, a trap, a PATH… must not
// change what a later *allowed* `ls`/`echo` runs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makeEvil, POISON_CASES } from '../exec/poisonCases';

const CLI = path.resolve(__dirname, '../../../../dist/cli.js');
const CALL_TIMEOUT_MS = 180_000;

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

// With and without progress tokens: a client that sends none keeps its persistent shell all the same.
for (const progress of [false, true]) describe(`mcp: stdio server sessions are reset before each call (${progress ? 'with' : 'without'} progress tokens)`, function () {
  this.timeout(600_000);
  let tmp: string;
  let evil: string;
  let client: Client;

  async function bash(command: string): Promise<{ text: string; isError: boolean }> {
    const r = (await client.callTool({ name: 'bash', arguments: { command } }, undefined, { timeout: CALL_TIMEOUT_MS, ...(progress ? { onprogress: () => undefined } : {}) })) as TextResult;
    // The result ends with the run's wall time; the output is what comes before it.
    const text = r.content.map((c) => c.text).join('\n').replace(/\n\nWall time: [\d.]+ seconds$/, '');
    return { text, isError: r.isError === true };
  }

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-reset-'));
    evil = makeEvil(tmp);
    const home = path.join(tmp, 'home');
    mkdirSync(home, { recursive: true });
    const rules = path.join(tmp, 'rules.json');
    writeFileSync(rules, JSON.stringify([{ match: 'ls *', approval: 'allow' }, { match: 'echo *', approval: 'allow' }]));
    const env = { ...process.env, HOME: home } as Record<string, string>;
    // `--yes` approves the poisoning calls (they all ask); the probes are allowed by the rules.
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--yes', '--rules', rules, '--cwd', tmp, '--sandbox', 'off'], cwd: tmp, env, stderr: 'pipe' });
    client = new Client({ name: 'reset-test', version: '1.0.0' });
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  });

  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when before() failed ahead of connecting
    await client?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('a git status does not run a repository-configured fsmonitor (the neutralising environment)', async () => {
    const repo = path.join(tmp, 'repo');
    const canary = path.join(tmp, 'fsmonitor.canary');
    const hook = path.join(tmp, 'fsmonitor.sh');
    writeFileSync(hook, `#!/bin/sh\necho ran >> '${canary}'\n`);
    chmodSync(hook, 0o755);
    execFileSync('git', ['init', '-q', repo]);
    execFileSync('git', ['-C', repo, 'config', 'core.fsmonitor', hook]);
    writeFileSync(path.join(repo, 'a'), 'x\n');
    const r = await bash(`cd ${repo} && git status --short; echo done`);
    assert.equal(r.isError, false, r.text);
    assert.equal(r.text.split('\n').pop(), 'done');
    assert.equal(existsSync(canary), false, 'the repository-configured fsmonitor ran');
  });

  it('one persistent shell: what a call exports reaches the next', async () => {
    assert.deepEqual(await bash('export CARRIED=yes; echo set'), { text: 'set', isError: false });
    assert.deepEqual(await bash('echo "$CARRIED"'), { text: 'yes', isError: false });
  });

  it('the issue\'s own forms: `ls(){ echo POISONED; }`, then an alias with `shopt -s expand_aliases`', async () => {
    assert.deepEqual(await bash('ls(){ echo POISONED; }; ls'), { text: 'POISONED', isError: false });
    assert.deepEqual(await bash('ls -d .'), { text: '.', isError: false });
    assert.deepEqual(await bash("shopt -s expand_aliases; alias ls='echo POISONED'\nls"), { text: 'POISONED', isError: false });
    assert.deepEqual(await bash('ls -d .'), { text: '.', isError: false });
  });

  for (const c of POISON_CASES.filter((x) => /^(ls -d \.|echo clean)$/.test(x.probe) || x.probe === 'ls -d .; echo clean')) {
    it(`${c.name}: a later allowed \`${c.probe}\` is the real one`, async () => {
      // The poisoning call really ran (approved by --yes).
      assert.equal((await bash(c.poison.replaceAll('EVIL', evil))).isError, false);
      const probe = await bash(c.probe);
      assert.equal(probe.isError, false, probe.text);
      const body = c.notice ? probe.text.replace(`[${c.notice}]\n`, '') : probe.text;
      assert.equal(body, c.expected.replace(/\n$/, ''));
    });
  }
});
