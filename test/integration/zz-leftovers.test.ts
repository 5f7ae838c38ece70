// Runs last (files run in name order): once every service is disposed, no process that Agent Bash
// started during the whole integration run may still be alive — orphans included, found by the
// session mark every such process carries.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { processesWithEnv } from '../../src/exec/processTree';
import { SESSION_ENV } from '../../src/vscode/terminals/processMarks';
import { testing } from './testApi';

function describeProcess(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim()}`;
  } catch {
    return `${pid} (gone)`;
  }
}

describe('zz: nothing left running', () => {
  it('every process the session started is gone after its services are disposed', async () => {
    const t = await testing();
    await t.services.bridge.disposeAsync();
    await t.jobs.dispose();
    await t.executors.dispose();
    let left = processesWithEnv(SESSION_ENV, t.sessionId);
    for (let i = 0; i < 40 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      left = processesWithEnv(SESSION_ENV, t.sessionId);
    }
    assert.deepEqual(left.map(describeProcess), []);
  });
});
