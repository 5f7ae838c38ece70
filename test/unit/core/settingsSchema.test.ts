import * as assert from 'node:assert/strict';
import { settingDefault } from '../../../src/core/settingsSchema';
import { DEFAULT_MAX_COLUMNS } from '../../../src/core/output/outputLimits';
import { DEFAULT_MCP_RESULT_CHARS } from '../../../src/mcp/resultCap';
import { DEFAULT_SANDBOX_LIMITS } from '../../../src/exec/sandbox/kernel/limits';
import { DEFAULT_SANDBOX_SETTINGS } from '../../../src/exec/sandbox/sandboxPolicy';
import { cliSettings } from '../../../src/cli/run';

// The one settings schema (issue 36): package.json is generated from it (manifest.test.ts checks the
// drift); here, the defaults the code uses where no setting is read are the schema's.
describe('core/settingsSchema', () => {
  it("the code's own defaults are the schema's: the command line's settings, the output, MCP and sandbox constants", () => {
    const cli = cliSettings([]);
    assert.equal(cli.maxTimeout, settingDefault('agentBash.maxTimeout'));
    assert.equal(cli.asyncMaxJobs, settingDefault('agentBash.async.maxJobs'));
    assert.deepEqual(cli.autoBackground, { enabled: settingDefault('agentBash.autoBackground.enabled'), thresholdMs: settingDefault('agentBash.autoBackground.thresholdMs') });
    assert.equal(cli.artifactHeadBytes, settingDefault('agentBash.artifactHeadBytes'));
    assert.equal(cli.outputMaxColumns, settingDefault('agentBash.outputMaxColumns'));
    assert.equal(cli.direnv, settingDefault('agentBash.direnv'));
    assert.equal(DEFAULT_MAX_COLUMNS, settingDefault('agentBash.outputMaxColumns'));
    assert.equal(DEFAULT_MCP_RESULT_CHARS, settingDefault('agentBash.mcp.maxResultCharacters'));
    assert.deepEqual(DEFAULT_SANDBOX_LIMITS, {
      processes: settingDefault('agentBash.sandbox.limits.processes'),
      memoryMiB: settingDefault('agentBash.sandbox.limits.memoryMiB'),
      tmpMiB: settingDefault('agentBash.sandbox.limits.tmpMiB'),
    });
    assert.equal(DEFAULT_SANDBOX_SETTINGS.enabled, settingDefault('agentBash.sandbox.enabled'));
    assert.equal(DEFAULT_SANDBOX_SETTINGS.autoApprove, settingDefault('agentBash.sandbox.autoApprove'));
    // A caller cannot change the schema through a default it was given.
    settingDefault('agentBash.shell.args').push('-x');
    assert.deepEqual(settingDefault('agentBash.shell.args'), ['-c']);
  });

});
