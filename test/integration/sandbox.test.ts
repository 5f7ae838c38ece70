// The OS sandbox inside the real VS Code: an LM tool call runs sandboxed (a write outside the
// workspace is refused and named), the refusal's retry with `sandbox: "off"` goes through the
// approval dialog and then runs outside, and a deny rule stays deny with autoApprove on.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { probeSandbox } from '../../src/exec/sandbox/sandboxProbe';
import { SANDBOX_RETRY_HINT } from '../../src/core/sandboxRefusals';
import { activateApi, answerDialogs, setPatterns, testing, workspaceDir } from './testApi';

function partsText(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

const invoke = async (input: Record<string, unknown>): Promise<string> =>
  partsText(await vscode.lm.invokeTool('agent_bash', { input, toolInvocationToken: undefined }));

describe('sandbox: agent commands in the OS sandbox', function () {
  this.timeout(60_000);
  let outside: string;

  before(async function () {
    if (!probeSandbox().sandbox) this.skip();
    await activateApi();
    await setPatterns([
      { match: 'rm *', approval: 'deny' },
      { match: '*', approval: 'allow', allowRedirects: true },
    ]);
  });
  beforeEach(() => {
    outside = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-it-outside-'));
  });
  afterEach(async () => {
    rmSync(outside, { recursive: true, force: true });
    await answerDialogs(undefined);
    await vscode.workspace.getConfiguration('agentBash').update('sandbox.autoApprove', undefined, vscode.ConfigurationTarget.Workspace);
  });
  after(async () => setPatterns(undefined));

  it('an LM tool call runs sandboxed: the workspace is writable, a write outside is refused and named', async () => {
    await answerDialogs('Allow once');
    const target = path.join(outside, 'x');
    const inWs = path.join(workspaceDir(), 'sandbox-it.txt');
    rmSync(inWs, { force: true });
    const text = await invoke({ command: `echo ok > sandbox-it.txt; cd ${outside} && touch x` });
    assert.equal(readFileSync(inWs, 'utf8'), 'ok\n');
    rmSync(inWs, { force: true });
    assert.equal(existsSync(target), false);
    assert.match(text, /touch: cannot touch 'x': Read-only file system/);
    assert.ok(text.includes('The OS sandbox refused writing x ('), text);
    assert.ok(text.endsWith(SANDBOX_RETRY_HINT), text);
  });

  it('in the editor too, the command runs under the seccomp filter in a user namespace, and VS Code\'s variables stay outside', async () => {
    await answerDialogs('Allow once');
    assert.ok(Object.keys(process.env).some((k) => k.startsWith('VSCODE_')), 'the extension host has VSCODE_* variables');
    const text = await invoke({ command: 'grep -E "^Seccomp(_filters)?:" /proc/self/status; env | grep -c "^VSCODE_" || true; readlink /proc/self/ns/user' });
    assert.match(text, /^Seccomp:\s+2\nSeccomp_filters:\s+1\n0\nuser:\[\d+\]\n/);
    assert.ok(!text.includes(readlinkSync('/proc/self/ns/user')), text);
  });

  it('a refused write names the path, and the retry with sandbox "off" shows the approval saying so', async () => {
    await answerDialogs('Allow once');
    const target = path.join(outside, 'retry');
    const first = await invoke({ command: `touch ${target}` });
    assert.ok(first.includes(`The OS sandbox refused writing ${target} (`), first);
    assert.equal(existsSync(target), false);

    const t = await testing();
    await answerDialogs('Allow once');
    await invoke({ command: `touch ${target}`, sandbox: 'off' });
    assert.equal(existsSync(target), true);
    assert.equal(t.services.prompter.asked.length, 1);
    assert.match(t.services.prompter.asked[0]?.detail ?? '', /runs outside the OS sandbox this time \(its caller asked for that\)/);

    // Denied in the dialog: nothing runs outside.
    const second = path.join(outside, 'refused-retry');
    await answerDialogs('Deny');
    const denied = await invoke({ command: `touch ${second}`, sandbox: 'off' });
    assert.match(denied, /^Command denied by the user: .*it runs outside the OS sandbox/);
    assert.equal(existsSync(second), false);
  });

  it('a deny rule stays deny with the sandbox on and autoApprove on', async () => {
    await vscode.workspace.getConfiguration('agentBash').update('sandbox.autoApprove', true, vscode.ConfigurationTarget.Workspace);
    const t = await testing();
    await answerDialogs('Allow once');
    const canary = path.join(workspaceDir(), 'sandbox-canary');
    writeFileSync(canary, 'x');
    try {
      const text = await invoke({ command: 'rm sandbox-canary' });
      assert.match(text, /^Command denied: `rm sandbox-canary` in segment 1 matched deny rule `rm \*`/);
      assert.equal(existsSync(canary), true);
      assert.equal(t.services.prompter.asked.length, 0);
    } finally {
      rmSync(canary, { force: true });
    }
  });
});
