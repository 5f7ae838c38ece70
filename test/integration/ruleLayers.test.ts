// Rules from every scope, merged (issue 18) inside a real extension host: user settings, workspace
// settings and the managed file are separate layers; deny beats prompt beats allow across them;
// "Always allow…" appends to the chosen scope and never relaxes another scope's deny.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { PolicyRule, ToolResult } from '../../src/core/contracts';
import { ALWAYS_ALLOW, ALWAYS_TITLE, DENY, SAVE_WORKSPACE } from '../../src/vscode/approvals/approvalDialog';
import { activateApi, answerDialogs, layerRules, setPatterns, testing, workspaceDir } from './testApi';

const MANAGED_ENV = 'AGENT_BASH_MANAGED_RULES';

function text(r: ToolResult): string {
  return r.content.map((c) => c.text).join('\n');
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('rule layers: user, workspace and managed rules merged', function () {
  this.timeout(90_000);
  let managedDir: string;
  const ws = (name: string): string => path.join(workspaceDir(), name);

  before(() => {
    managedDir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-managed-it-'));
  });
  afterEach(async () => {
    await answerDialogs(undefined);
    delete process.env[MANAGED_ENV];
    await setPatterns(undefined, vscode.ConfigurationTarget.Global);
    await setPatterns(undefined);
    for (const name of ['secret-a3', 'secret-b', 'hello-layers', 'other-layers', 'managed-x', 'broken-x']) rmSync(ws(name), { force: true });
  });
  after(() => rmSync(managedDir, { recursive: true, force: true }));

  it('user deny + workspace Always allow: the saved rule is narrowed, appended, and the deny still holds', async () => {
    const api = await activateApi();
    const t = await testing();
    const userDeny: PolicyRule = { match: 'touch secret*', approval: 'deny' };
    await setPatterns([userDeny], vscode.ConfigurationTarget.Global);
    const workspaceBase: PolicyRule[] = [{ match: 'rm *', approval: 'deny' }];
    await setPatterns(workspaceBase);

    t.services.prompter.setResponder((q) => (q.message === ALWAYS_TITLE ? SAVE_WORKSPACE : ALWAYS_ALLOW));
    const first = await api.runBash({ command: 'touch hello-layers' });
    assert.equal(first.isError, undefined, text(first));
    assert.equal(existsSync(ws('hello-layers')), true);
    // `touch *` would also allow `touch secret`: the exact command is saved instead, and said so.
    const step2 = t.services.prompter.asked.find((q) => q.message === ALWAYS_TITLE);
    assert.ok(step2, 'the second step was asked');
    assert.match(step2.detail ?? '', /`touch \*` would also allow `touch secret`, which deny rule `touch secret\*` \(user settings\) covers: saving `touch hello-layers` instead/);
    const saved = vscode.workspace.getConfiguration('agentBash').inspect<PolicyRule[]>('patterns')?.workspaceValue;
    assert.deepEqual(saved, [...workspaceBase, { match: 'touch hello-layers', approval: 'allow' }]);
    // The user's rules stay in force in this workspace.
    await waitFor('the saved rule to apply', () => layerRules(t.services.settings(), 'workspace').length === 2);
    assert.deepEqual(layerRules(t.services.settings(), 'user'), [userDeny]);

    await answerDialogs(DENY);
    const denied = await api.runBash({ command: 'touch secret-a3' });
    assert.equal(denied.isError, true);
    assert.equal(text(denied), 'Command denied: `touch secret-a3` in segment 1 matched deny rule `touch secret*`');
    assert.equal(existsSync(ws('secret-a3')), false, 'the denied command did not run');
    const explained = api.explain('touch secret-a3');
    assert.equal(explained.layer, 'user');
    assert.equal(explained.layerSource, 'user settings');
  });

  it('a `*` allow in the workspace keeps the user deny in force (the workspace array does not hide it)', async () => {
    const api = await activateApi();
    await setPatterns([{ match: 'touch secret*', approval: 'deny' }], vscode.ConfigurationTarget.Global);
    await setPatterns([{ match: 'touch *', approval: 'allow' }]);
    await answerDialogs(DENY);
    const denied = await api.runBash({ command: 'touch secret-b' });
    assert.equal(denied.isError, true);
    assert.match(text(denied), /^Command denied: /);
    assert.equal(existsSync(ws('secret-b')), false, 'the denied command did not run');
    assert.equal(api.explain('touch secret-b').layer, 'user');
    const other = await api.runBash({ command: 'touch other-layers' });
    assert.equal(other.isError, undefined, text(other));
    assert.equal(existsSync(ws('other-layers')), true);
    assert.equal(api.explain('touch other-layers').layer, 'workspace');
    // Always allow… is not offered for a command a deny or prompt rule of any layer catches.
    await setPatterns([{ match: 'touch secret*', approval: 'prompt' }], vscode.ConfigurationTarget.Global);
    await api.runBash({ command: 'touch secret-b' });
    const t = await testing();
    const asked = t.services.prompter.asked.at(-1);
    assert.ok(asked);
    assert.equal(asked.buttons.includes(ALWAYS_ALLOW), false, JSON.stringify(asked.buttons));
    assert.match(asked.detail ?? '', /prompt rule `touch secret\*` \(user settings\)/);
    assert.equal(existsSync(ws('secret-b')), false, 'denied in the dialog: did not run');
  });

  it('a managed deny is not relaxed by a user `*` allow; an invalid managed file makes every command ask', async () => {
    const api = await activateApi();
    const t = await testing();
    const managed = path.join(managedDir, 'rules.json');
    writeFileSync(managed, JSON.stringify([{ match: 'touch managed*', approval: 'deny' }]));
    process.env[MANAGED_ENV] = managed;
    await setPatterns([{ match: '*', approval: 'allow' }], vscode.ConfigurationTarget.Global);
    await answerDialogs(DENY);
    const denied = await api.runBash({ command: 'touch managed-x' });
    assert.equal(denied.isError, true);
    assert.equal(text(denied), 'Command denied: `touch managed-x` in segment 1 matched deny rule `touch managed*`');
    assert.equal(existsSync(ws('managed-x')), false, 'the denied command did not run');
    const explained = api.explain('touch managed-x');
    assert.equal(explained.layer, 'managed');
    assert.equal(explained.layerSource, managed);
    assert.deepEqual(layerRules(t.services.settings(), 'managed'), [{ match: 'touch managed*', approval: 'deny' }]);

    writeFileSync(managed, '[{ "match": "touch *", "approval": "block" }]');
    const asked = await api.runBash({ command: 'touch broken-x' });
    assert.equal(asked.isError, true);
    assert.match(text(asked), /^Command denied by the user: the managed rules file cannot be used \(rules file .*rules\.json: \[0\]\.approval: approval must be "allow", "prompt" or "deny"\), so every command asks until it is fixed$/);
    assert.equal(t.services.prompter.asked.length, 1, 'the user was asked');
    assert.equal(existsSync(ws('broken-x')), false, 'the denied command did not run');
  });
});
