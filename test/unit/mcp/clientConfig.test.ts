// The configuration the Copy MCP Configuration command hands out, checked field by field.
import assert from 'node:assert/strict';
import { claudeCodeCommand, codexToml, genericJson, mcpClientConfig } from '../../../src/mcp/clientConfig';

describe('mcp: client configuration', () => {
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
    const text = mcpClientConfig({ port: 4567, token: 'tok', cliPath: '/opt/agent bash/dist/cli.js' });
    for (const part of [claudeCodeCommand(4567, 'tok'), codexToml(4567, 'tok'), genericJson(4567, 'tok')]) assert.ok(text.includes(part), part);
    assert.ok(text.includes('node "/opt/agent bash/dist/cli.js" mcp --cwd "$PWD"'));
  });
});
