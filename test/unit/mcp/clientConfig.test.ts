// The configuration the Copy MCP Configuration command hands out, checked field by field.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { claudeCodeCommand, codexToml, genericJson, mcpClientConfig } from '../../../src/mcp/clientConfig';
import { writeStdioLauncher } from '../../../src/mcp/stdioLauncher';

describe('mcp: client configuration', function () {
  this.timeout(180_000);
  it('gives Claude Code a `claude mcp add` line with the URL and the bearer header', () => {
    assert.equal(
      claudeCodeCommand(4567, 'tok'),
      'claude mcp add --transport http agent-bash http://127.0.0.1:4567/mcp --header "Authorization: Bearer tok"',
    );
  });

  it('gives Codex a config.toml table with the URL and the header', () => {
    assert.equal(codexToml(4567, 'tok'), '[mcp_servers.agent-bash]\nurl = "http://127.0.0.1:4567/mcp"\nhttp_headers = { Authorization = "Bearer tok" }');
  });

  it('gives other clients the JSON mcpServers shape', () => {
    assert.deepEqual(JSON.parse(genericJson(4567, 'tok')), {
      mcpServers: { 'agent-bash': { type: 'http', url: 'http://127.0.0.1:4567/mcp', headers: { Authorization: 'Bearer tok' } } },
    });
  });

  it('puts all of them, and the stdio form, in one text', () => {
    const text = mcpClientConfig({ port: 4567, token: 'tok', launcher: '/home/u/.config/Code/User/globalStorage/agent-bash.agent-bash/agent-bash-mcp' });
    for (const part of [claudeCodeCommand(4567, 'tok'), codexToml(4567, 'tok'), genericJson(4567, 'tok')]) assert.ok(text.includes(part), part);
    assert.ok(text.includes('"/home/u/.config/Code/User/globalStorage/agent-bash.agent-bash/agent-bash-mcp" --cwd "$PWD"'));
    assert.ok(text.includes('"command": "/home/u/.config/Code/User/globalStorage/agent-bash.agent-bash/agent-bash-mcp"'));
  });

  it('the stdio launcher starts the installed CLI with the exported user rules, and is rewritten in place', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-launcher '));
    const work = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-launcher-cwd-'));
    try {
      const cli = path.resolve(__dirname, '../../../../dist/cli.js');
      // First a stale version's path, then the current one: the configuration never changes.
      const first = writeStdioLauncher({ dir, cliPath: '/gone/agent-bash-0.0.1/dist/cli.js', userRules: [] });
      const launcher = writeStdioLauncher({ dir, cliPath: cli, userRules: [{ match: 'echo *', approval: 'allow' }, { match: 'touch *', approval: 'deny' }] });
      assert.equal(launcher, first);
      assert.equal(statSync(launcher).mode & 0o777, 0o755);
      const transport = new StdioClientTransport({ command: launcher, args: ['--cwd', work], stderr: 'pipe' });
      const client = new Client({ name: 'launcher-test', version: '1.0.0' });
      await client.connect(transport, { timeout: 120_000 });
      try {
        const echo = (await client.callTool({ name: 'bash', arguments: { command: 'echo via-launcher' } }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
        assert.equal(echo.isError, false);
        assert.match(echo.content[0].text, /^via-launcher\n/);
        const denied = (await client.callTool({ name: 'bash', arguments: { command: 'touch made' } }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
        assert.equal(denied.isError, true);
        assert.match(denied.content[0].text, /^Command denied: .*`touch \*`/);
        assert.equal(existsSync(path.join(work, 'made')), false);
      } finally {
        await client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  });
});
