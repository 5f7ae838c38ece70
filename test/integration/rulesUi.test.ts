// Issue 18's person-facing side inside a real extension host: the second step of Always allow… in an
// agent panel's inline card (Back returns to the first step, Allow once instead saves nothing), and
// Manage Rules editing the user and workspace layers, each at its own scope.
import * as assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { AcpAgentHandle } from '../../src/vscode/acp/acpCommands';
import { CONNECT_ACP_COMMAND } from '../../src/vscode/acp/acpCommands';
import { ALLOW_EXACT, EDIT_PATTERNS, ALLOW_ONCE_INSTEAD, ALWAYS_ALLOW, ALWAYS_TITLE, BACK, SAVE_USER, SAVE_WORKSPACE, ALLOW_ONCE, ALLOW_SESSION, DENY } from '../../src/vscode/approvals/approvalDialog';
import type { ManageRulesPanel } from '../../src/vscode/rules/manageRules';
import { MANAGE_RULES_COMMAND } from '../../src/vscode/rules/manageRules';
import { EXTENSION_ID, setPatterns, testing, waitUntil, workspaceDir } from './testApi';

const patterns = () => vscode.workspace.getConfiguration('agentBash').inspect<unknown>('patterns');

describe('rules UI: the second step in a panel card, Manage Rules', function () {
  this.timeout(60_000);
  const base = [
    { match: 'echo *', approval: 'allow' as const },
    { match: 'rm *', approval: 'deny' as const },
  ];
  before(async () => setPatterns(base));
  after(async () => {
    await vscode.workspace.getConfiguration('agentBash').update('patterns', undefined, vscode.ConfigurationTarget.Global);
    await setPatterns(undefined);
  });

  it('in an agent panel: Back on the second step asks the first again; Allow once instead runs once and saves nothing', async () => {
    const t = await testing();
    t.services.prompter.setResponder(undefined);
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const marker = path.join(workspaceDir(), 'rules-ui-card.txt');
    rmSync(marker, { force: true });
    const handle = await vscode.commands.executeCommand<AcpAgentHandle>(CONNECT_ACP_COMMAND, {
      name: 'Demo agent',
      command: process.execPath,
      args: [path.join(ext.extensionPath, 'sample-workspace', '.agent-bash', 'demo-agent.js')],
    });
    try {
      const panel = handle.panel;
      assert.ok(panel);
      await waitUntil(() => panel.canAsk, 20_000, 'the panel to be visible');
      const turn = panel.sendPrompt('touch rules-ui-card.txt');
      let seen = 0;
      const next = async () => {
        await waitUntil(() => [...panel.questions.keys()].some((id) => id > seen), 20_000, 'the next inline question');
        const [id, q] = [...panel.questions.entries()].find(([i]) => i > seen)!;
        seen = id;
        return { id, question: q.question };
      };
      let q = await next();
      assert.deepEqual(q.question.buttons, [ALLOW_ONCE, ALLOW_SESSION, ALWAYS_ALLOW, DENY]);
      await panel.handleMessage({ type: 'answer', id: q.id, button: ALWAYS_ALLOW });
      q = await next();
      assert.equal(q.question.message, ALWAYS_TITLE);
      assert.deepEqual(q.question.buttons, [SAVE_WORKSPACE, SAVE_USER, ALLOW_EXACT, EDIT_PATTERNS, ALLOW_ONCE_INSTEAD, BACK]);
      // The card's Escape answers the close button: Back.
      assert.equal(q.question.closeButton, BACK);
      await panel.handleMessage({ type: 'answer', id: q.id, button: BACK });
      q = await next();
      assert.deepEqual(q.question.buttons, [ALLOW_ONCE, ALLOW_SESSION, ALWAYS_ALLOW, DENY], 'Back shows the first step again');
      assert.equal(existsSync(marker), false, 'it ran before anyone allowed it');
      await panel.handleMessage({ type: 'answer', id: q.id, button: ALWAYS_ALLOW });
      q = await next();
      await panel.handleMessage({ type: 'answer', id: q.id, button: ALLOW_ONCE_INSTEAD });
      await turn;
      await waitUntil(() => existsSync(marker), 20_000, 'rules-ui-card.txt');
      assert.deepEqual(patterns()?.workspaceValue, base, 'the workspace rules changed');
      assert.equal(patterns()?.globalValue, undefined, 'the user rules changed');
    } finally {
      handle.panel?.dispose();
      await handle.connection.disconnect('test finished');
      rmSync(marker, { force: true });
    }
  });

  it('Manage Rules lists the layers in order and edits the user and workspace layers each at its own scope', async () => {
    const view = await vscode.commands.executeCommand<ManageRulesPanel>(MANAGE_RULES_COMMAND);
    try {
      const layersOf = () => view.layerViews().map((l) => `${l.layer}:${l.rules.map((r) => `${r.approval} ${r.match}`).join(',')}`);
      assert.deepEqual(layersOf().slice(1), ['managed:', 'user:', 'workspace:allow echo *,deny rm *']);
      assert.match(layersOf()[0] ?? '', /^builtin:allow ls \*,/);
      assert.equal(await view.edit('user', { op: 'add', match: 'git status *', approval: 'allow' }), true);
      assert.deepEqual(patterns()?.globalValue, [{ match: 'git status *', approval: 'allow' }]);
      assert.deepEqual(patterns()?.workspaceValue, base, 'a user edit changed the workspace');
      assert.equal(await view.edit('workspace', { op: 'add', match: 'printf rules-ui *', approval: 'deny' }), true);
      assert.deepEqual(patterns()?.workspaceValue, [...base, { match: 'printf rules-ui *', approval: 'deny' }]);
      assert.deepEqual(patterns()?.globalValue, [{ match: 'git status *', approval: 'allow' }], 'a workspace edit changed the user rules');
      assert.equal(await view.edit('workspace', { op: 'move', index: 2, match: 'printf rules-ui *', to: 0 }), true);
      assert.deepEqual(patterns()?.workspaceValue, [{ match: 'printf rules-ui *', approval: 'deny' }, ...base]);
      // A stale index (the rule the page showed is no longer there) changes nothing.
      assert.equal(await view.edit('workspace', { op: 'remove', index: 1, match: 'printf rules-ui *' }), false);
      assert.match(view.lastNotice?.text ?? '', /changed meanwhile; nothing was changed/);
      // Only the two settings layers can be edited.
      assert.equal(await view.edit('builtin' as 'user', { op: 'add', match: 'x', approval: 'allow' }), false);
      assert.equal(view.lastNotice?.text, 'That layer cannot be edited here.');
      view.tryCommand('printf rules-ui now');
      const tried = view.lastTried;
      assert.ok(tried?.type === 'tried' && 'headline' in tried.result, JSON.stringify(tried));
      assert.equal(tried.result.headline, 'Refused: it does not run.');
      assert.match(tried.result.because, /deny rule `printf rules-ui \*`/);
      assert.equal(await view.edit('workspace', { op: 'remove', index: 0, match: 'printf rules-ui *' }), true);
      assert.equal(await view.edit('user', { op: 'remove', index: 0, match: 'git status *' }), true);
      assert.deepEqual(patterns()?.workspaceValue, base);
      assert.equal(patterns()?.globalValue, undefined);
    } finally {
      view.dispose();
    }
  });
});
