import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import type { CreateTerminalParams, TerminalHandle } from '../../../src/core/contracts';
import { AcpTerminalHost, INVALID_PARAMS_CODE } from '../../../src/acp/terminalHost';

describe('acp terminalHost: bad cwd', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-acp-cwd-'));
    writeFileSync(path.join(dir, 'afile'), 'x');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function host(created: CreateTerminalParams[], asked: string[]): AcpTerminalHost {
    return new AcpTerminalHost({
      bridge: {
        createTerminal: async (params) => {
          created.push(params);
          return { terminalId: 't1' } as TerminalHandle;
        },
        releaseOwner: async () => undefined,
      },
      decide: () => undefined,
      approver: {
        approve: async (req) => {
          asked.push(req.command);
          return { kind: 'allow' };
        },
      },
      owner: 'agent',
      defaultCwd: () => dir,
      log: () => undefined,
    });
  }

  const cases: Array<[string, () => string, () => string]> = [
    ['below a file', () => 'afile/sub', () => `Working directory does not exist: ${path.join(dir, 'afile/sub')}`],
    ['a file', () => path.join(dir, 'afile'), () => `Working directory is not a directory: ${path.join(dir, 'afile')}`],
    [
      'too long',
      () => `/${'a'.repeat(300)}`,
      () => `Working directory path is too long (301 bytes; a path may have 4095 bytes and each name in it 255): /${'a'.repeat(59)}…${'a'.repeat(20)}`,
    ],
  ];
  for (const [name, cwd, message] of cases) {
    it(`answers invalid params with the tool's message, asks nobody, runs nothing: ${name}`, async () => {
      const created: CreateTerminalParams[] = [];
      const asked: string[] = [];
      await assert.rejects(host(created, asked).create({ command: 'touch', args: ['x'], cwd: cwd() }, new AbortController().signal), (err: unknown) => {
        assert.ok(err instanceof RequestError);
        assert.equal(err.code, INVALID_PARAMS_CODE);
        assert.equal(err.message, message());
        return true;
      });
      assert.deepEqual(created, []);
      assert.deepEqual(asked, []);
    });
  }

  it('passes a good relative cwd on as an absolute path', async () => {
    const created: CreateTerminalParams[] = [];
    const asked: string[] = [];
    await host(created, asked).create({ command: 'true', cwd: '.' }, new AbortController().signal);
    assert.equal(created[0].cwd, dir);
  });
});
