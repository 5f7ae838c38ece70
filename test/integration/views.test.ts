// Issue 13's surfaces inside a real extension host: the history view's entries and decisions, the
// approval choices (for this session, always + Undo), read-only output documents, the session
// directory status item, and the demo ACP agent answered inline in its panel.
import * as assert from 'node:assert/strict';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { decisionLabel, endLabel, entryDescription, OUTSIDE_SANDBOX_MARK, sandboxMark, type HistoryEntry } from '../../src/core/history';
import { probeSandbox } from '../../src/exec/sandbox/sandboxProbe';
import type { AcpAgentHandle } from '../../src/vscode/acp/acpCommands';
import { CONNECT_ACP_COMMAND } from '../../src/vscode/acp/acpCommands';
import { ALLOW_ONCE, ALLOW_SESSION, ALWAYS_ALLOW, ALWAYS_TITLE, DENY, DialogApprover, SAVE_WORKSPACE } from '../../src/vscode/approvals/approvalDialog';
import { ARTIFACT_SCHEME } from '../../src/vscode/history/artifactProvider';
import { HISTORY_COMMANDS } from '../../src/vscode/history/historyView';
import { EXPLAIN_SCHEME } from '../../src/vscode/commands/explainDocument';
import type { PolicyDecision } from '../../src/core/contracts';
import { activateApi, answerDialogs, EXTENSION_ID, layerRules, setPatterns, testing, workspaceDir, withoutBuiltinRules } from './testApi';

async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('views: history, approvals, output documents, session directory, demo agent', function () {
  this.timeout(60_000);
  const base = [
    { match: 'echo *', approval: 'allow' as const },
    { match: 'rm *', approval: 'deny' as const },
  ];
  // These tests ask about everyday commands (`printf`), which the built-in list would allow.
  before(async () => {
    await withoutBuiltinRules(true);
    await setPatterns(base);
  });
  afterEach(async () => answerDialogs(undefined));
  after(async () => {
    await setPatterns(undefined);
    await withoutBuiltinRules(false);
  });

  const latest = async (): Promise<HistoryEntry> => {
    const h = (await testing()).history;
    assert.ok(h, 'testing.history');
    const e = h.entries[0];
    assert.ok(e, 'the history is empty');
    return e;
  };

  it('records every command with who decided: rule, you once, denied by rule, denied by you', async () => {
    const api = await activateApi();
    await answerDialogs(DENY);
    const canary = path.join(workspaceDir(), 'views-canary.txt');
    await api.runBash({ command: `touch ${JSON.stringify(canary)}` });
    let e = await latest();
    assert.equal(decisionLabel(e.decision), 'denied by you');
    assert.equal(endLabel(e), 'Not run');
    assert.equal(existsSync(canary), false, 'the denied command did not run');

    await api.runBash({ command: 'rm -rf ./views-nothing' });
    e = await latest();
    assert.equal(decisionLabel(e.decision), 'denied by rule `rm *` from workspace settings');
    assert.equal(e.caller.kind, 'api');

    await api.runBash({ command: 'echo views-allowed' });
    e = await latest();
    assert.equal(decisionLabel(e.decision), 'allowed by rule `echo *` from workspace settings');
    assert.equal(endLabel(e), 'Finished (exit 0)');
    assert.equal(e.cwd, workspaceDir());
    assert.equal(e.outputBytes !== undefined && e.outputBytes > 0, true);

    await answerDialogs(ALLOW_ONCE);
    await vscode.commands.executeCommand('agentBash.run', { command: 'printf views-once' });
    e = await latest();
    assert.equal(decisionLabel(e.decision), 'allowed by you, once');
    assert.equal(e.caller.kind, 'palette');
    assert.equal(e.cwd, workspaceDir(), 'palette runs record where they ran');
  });

  it('issue 34: a run outside the OS sandbox is marked on its row; one inside is not', async function () {
    if (!probeSandbox().sandbox) this.skip();
    const api = await activateApi();
    await api.runBash({ command: 'echo views-inside' });
    let e = await latest();
    assert.equal(e.command, 'echo views-inside');
    // An auto-approved read: marked read-only (READ_ONLY_MARKS), not outside.
    assert.equal(sandboxMark(e), 'read-only');
    // sandbox "off" asks first (it is not the rule's to allow outside).
    await answerDialogs(ALLOW_ONCE);
    await api.runBash({ command: 'echo views-outside', sandbox: 'off' } as Parameters<typeof api.runBash>[0]);
    e = await latest();
    assert.equal(e.command, 'echo views-outside');
    assert.equal(e.end, 'exit');
    assert.equal(sandboxMark(e), OUTSIDE_SANDBOX_MARK);
    assert.ok(entryDescription(e).includes(' · outside the sandbox · '), entryDescription(e));
  });

  it('Allow for this session answers the same command again without asking; another command asks', async () => {
    const api = await activateApi();
    const t = await testing();
    await answerDialogs(ALLOW_SESSION);
    const first = await api.runBash({ command: 'printf views-session' });
    assert.equal(first.isError, undefined);
    assert.equal(t.services.prompter.asked.length, 1);
    assert.deepEqual(t.services.prompter.asked[0]?.buttons, [ALLOW_ONCE, ALLOW_SESSION, ALWAYS_ALLOW, DENY]);
    assert.equal(t.services.prompter.asked[0]?.closeButton, DENY, 'Escape is Deny');
    await answerDialogs(DENY);
    const again = await api.runBash({ command: 'printf views-session' });
    assert.match(again.content[0]?.text ?? '', /^views-session\n/);
    assert.equal(t.services.prompter.asked.length, 0, 'the second run was not asked');
    assert.equal(decisionLabel((await latest()).decision), 'allowed by you for this session');
    const other = await api.runBash({ command: 'printf views-other' });
    assert.equal(other.isError, true);
    assert.equal(t.services.prompter.asked.length, 1, 'another command is asked');
  });

  it('Always allow… saves the rules, names them, and Undo removes exactly those', async () => {
    const api = await activateApi();
    const t = await testing();
    t.services.prompter.setResponder((q) => (q.message === ALWAYS_TITLE ? SAVE_WORKSPACE : ALWAYS_ALLOW));
    const r = await api.runBash({ command: 'printf views-always' });
    assert.equal(r.isError, undefined);
    assert.equal(decisionLabel((await latest()).decision), 'allowed by you, always');
    // The suites load src from out/, the extension from dist/: check the shape, not the class.
    const approver = t.services.approver as DialogApprover;
    const saved = approver.lastSaved;
    assert.ok(saved);
    assert.deepEqual(saved.rules, [{ match: 'printf *', approval: 'allow' }]);
    assert.equal(saved.where, 'workspace settings (.vscode/settings.json)');
    // Appended: the workspace's own deny and prompt rules keep matching first.
    assert.deepEqual(layerRules(t.services.settings(), 'workspace'), [...base, { match: 'printf *', approval: 'allow' }]);
    await approver.undo(saved);
    assert.deepEqual(layerRules(t.services.settings(), 'workspace'), base);
  });

  it('Open Full Output shows a read-only artifact-scheme document with command, cwd and exit status', async () => {
    const api = await activateApi();
    await api.runBash({ command: 'echo views-output-line' });
    const e = await latest();
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>(HISTORY_COMMANDS.openOutput, e.id);
    const doc = editor.document;
    assert.equal(doc.uri.scheme, ARTIFACT_SCHEME);
    // The tab is named by the command and when it ran, not by the entry's id.
    assert.match(doc.uri.path.split('/').at(-1) ?? '', /^echo views-output-line · \d\d:\d\d:\d\d\.log$/);
    assert.equal(doc.isDirty, false);
    assert.equal(doc.isUntitled, false);
    const text = doc.getText();
    assert.ok(text.startsWith(`$ echo views-output-line\nWorking directory: ${workspaceDir()}\n`), text);
    assert.match(text, /\nResult: Finished \(exit 0\) in \d+ ms\n/);
    assert.match(text, /\nviews-output-line\n/);
    // Clicking a row whose terminal is gone opens the same document.
    const opened = await vscode.commands.executeCommand<vscode.TextEditor>(HISTORY_COMMANDS.open, e.id);
    assert.equal(opened.document.uri.toString(), doc.uri.toString());
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.equal(vscode.workspace.textDocuments.some((d) => d.isUntitled), false);
  });

  it('Explain Policy Decision opens a read-only Markdown document that says the decision in words', async () => {
    await activateApi();
    const command = 'echo views-explain && rm -rf views-x';
    const decision = await vscode.commands.executeCommand<PolicyDecision>('agentBash.explain', { command, show: true });
    assert.equal(decision.decision, 'deny');
    let doc: vscode.TextDocument | undefined;
    await until('the explanation document', () => (doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === EXPLAIN_SCHEME && d.uri.path.includes('views-explain'))) !== undefined);
    assert.ok(doc);
    assert.equal(doc.uri.path.split('/').at(-1), 'echo views-explain && rm -rf views-x.md');
    const text = doc.getText();
    assert.ok(
      text.startsWith(
        '# Agent Bash: `echo views-explain && rm -rf views-x`\n\nAgent Bash would refuse it, because the deny rule `rm *` in workspace settings matches `rm -rf views-x`.\n\n',
      ),
      text,
    );
    assert.ok(
      text.includes(
        '## The 2 commands in this line\n\n1. `echo views-explain`: runs without asking: the allow rule `echo *` in workspace settings covers it.\n2. `rm -rf views-x`: refused: the deny rule `rm *` in workspace settings matches it.\n',
      ),
      text,
    );
    assert.ok(text.includes('\n## What the sandbox would confine\n'), text);
    assert.ok(!text.includes('segment'), text);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a bang cd shows the session directory on the status bar; clicking it resets', async () => {
    const api = await activateApi();
    const t = await testing();
    const status = t.cwdStatus;
    assert.ok(status);
    assert.equal(status.shown, false);
    const tmp = realpathSync('/tmp');
    await api.runBang('cd /tmp');
    assert.equal(t.cwd.get(), tmp);
    // Your bang commands are in History too, as "You", with the move they made.
    const bang = t.history?.entries[0];
    assert.equal(bang?.command, 'cd /tmp');
    assert.equal(bang.caller.name, 'You');
    assert.equal(decisionLabel(bang.decision), 'your own command (no approval)');
    assert.equal(endLabel(bang), 'Finished (exit 0)');
    assert.equal(bang.note, `Agent commands now run in ${tmp}.`);
    assert.equal(status.shown, true);
    assert.equal(status.item.text, `$(folder-opened) Agent Bash: ${tmp}`);
    assert.equal(status.item.command, 'agentBash.resetSessionDirectory');
    await vscode.commands.executeCommand('agentBash.resetSessionDirectory');
    assert.equal(t.cwd.get(), workspaceDir());
    assert.equal(status.shown, false);
  });

  it('the demo agent runs a typed line through its panel with an inline approval, and it lands in the history', async () => {
    const t = await testing();
    // No scripted answers: with the panel visible, the question must go to its card.
    t.services.prompter.setResponder(undefined);
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const script = path.join(ext.extensionPath, 'sample-workspace', '.agent-bash', 'demo-agent.js');
    const handle = await vscode.commands.executeCommand<AcpAgentHandle>(CONNECT_ACP_COMMAND, {
      name: 'Demo agent',
      command: process.execPath,
      args: [script],
    });
    try {
      const panel = handle.panel;
      assert.ok(panel);
      await until('the panel to be visible', () => panel.canAsk);
      const turn = panel.sendPrompt('printf demo-inline');
      await until('the inline approval card', () => panel.questions.size === 1).catch((err: Error) => {
        throw new Error(`${err.message}; transcript ${JSON.stringify(panel.transcript.items)}; modal asked ${JSON.stringify(t.services.prompter.asked)}`);
      });
      const [id, q] = [...panel.questions.entries()][0]!;
      assert.equal(q.question.message, 'Agent Bash: Demo agent wants to run a command');
      assert.deepEqual(q.question.buttons, [ALLOW_ONCE, ALLOW_SESSION, ALWAYS_ALLOW, DENY]);
      await panel.handleMessage({ type: 'answer', id, button: ALLOW_ONCE });
      await turn;
      const agentText = panel.transcript.items.filter((i) => i.kind === 'agent').map((i) => i.text).join('');
      assert.match(agentText, /\*\*Done\*\* \(exit 0\):\n\n```\ndemo-inline\n```/);
      const h = t.history;
      assert.ok(h);
      await until('the exit in the history', () => h.entries[0]?.end === 'exit');
      const e = h.entries[0]!;
      assert.equal(e.command, 'printf demo-inline');
      assert.equal(e.caller.name, 'Demo agent');
      assert.equal(decisionLabel(e.decision), 'allowed by you, once');
      assert.equal(e.exitCode, 0);
    } finally {
      handle.panel?.dispose();
      await handle.connection.disconnect('test finished');
    }
  });
});
