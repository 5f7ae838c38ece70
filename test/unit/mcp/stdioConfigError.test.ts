// A stdio server that cannot start as configured (issue 33): it still answers `initialize`, lists its
// tools and answers every tool call with the configuration error in plain words (and says it on
// stderr), so a client that hides stderr (Claude Code: "Failed to connect") shows it. Nothing runs.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MCP_USAGE } from '../../../src/cli/mcp';
import { configErrorMessage } from '../../../src/mcp/bashMcpServer';
import { RULES_FILE_MESSAGES } from '../../../src/core/policy/rules/ruleLayers';
import { waitFor } from '../exec/helpers';
import { callTool, connectStdio, textOf } from './stdioHelpers';

describe('mcp stdio: a configuration that cannot run', function () {
  this.timeout(300_000);
  let tmp: string;

  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-config-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  const cases: Array<[string, (dir: string) => string[], (dir: string) => string]> = [
    ['a mistyped --rules path', (dir) => ['--rules', path.join(dir, 'rulez.json')], (dir) => RULES_FILE_MESSAGES.unreadable(path.join(dir, 'rulez.json'), 'ENOENT')],
    ['an unknown option', () => ['--rulse', 'x.json'], () => 'unknown option: --rulse'],
  ];
  for (const [what, args, error] of cases) {
    it(`${what}: initialize succeeds, and every tool call answers the error; nothing runs`, async () => {
      const marker = path.join(tmp, 'ran');
      const { client, stderr } = await connectStdio([...args(tmp), '--yes', '--cwd', tmp], tmp);
      try {
        const expected = configErrorMessage(error(tmp), MCP_USAGE);
        assert.equal(client.getInstructions(), expected);
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ['bash', 'read_artifact']);
        for (const [name, input] of [['bash', { command: `touch ${marker}` }], ['read_artifact', { id: '1' }], ['bash_output', { job_id: 'job-1' }]] as const) {
          const r = await callTool(client, name, input);
          assert.equal(r.isError, true);
          assert.equal(textOf(r), expected);
        }
        assert.equal(existsSync(marker), false);
        assert.ok(await waitFor(() => stderr().endsWith('\n'), 60_000), 'nothing on stderr');
        assert.equal(stderr(), `agent-bash mcp: ${error(tmp)}\n${MCP_USAGE}\n`);
      } finally {
        await client.close();
      }
    });
  }
});
