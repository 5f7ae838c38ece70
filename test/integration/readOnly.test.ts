// The read-only fence inside the real VS Code: an LM tool call the built-in list auto-approves runs
// in the caller's persistent sandboxed shell behind its terminal, fenced; a misread line cannot
// write (the host judges the canary), the result says what the kernel refused, History marks the
// row, what the read assigned carries to the caller's next call, and `sandbox: "write"` asks.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { fenceSupport } from '../../src/exec/sandbox/readOnly/readOnlySupport';
import { probeSandbox } from '../../src/exec/sandbox/sandboxProbe';
import { activateApi, answerDialogs, setPatterns, testing, workspaceDir } from './testApi';

function partsText(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

const invoke = async (input: Record<string, unknown>): Promise<string> =>
  partsText(await vscode.lm.invokeTool('agent_bash', { input, toolInvocationToken: undefined }));

describe('read-only: auto-approved reads in the editor run fenced', function () {
  this.timeout(60_000);
  let canary: string;

  before(async function () {
    if (!probeSandbox().sandbox || !fenceSupport('sandboxed').enforced) this.skip();
    await activateApi();
    await setPatterns(undefined);
  });
  beforeEach(() => {
    canary = path.join(workspaceDir(), 'ro-canary.txt');
    writeFileSync(canary, 'canary\n');
  });
  afterEach(async () => {
    rmSync(canary, { force: true });
    rmSync(path.join(workspaceDir(), 'ro-made.txt'), { force: true });
    await answerDialogs(undefined);
  });

  it('an auto-approved read runs fenced without asking: its HOME is its own scratch folder, and a write it tries is refused', async () => {
    const t = await testing();
    const asked = t.services.prompter.asked.length;
    const text = await invoke({ command: 'echo "home=$HOME"; cat ro-canary.txt' });
    assert.equal(t.services.prompter.asked.length, asked, 'it ran without asking');
    assert.match(text, /^home=\/.*\/ro-[^/\n]+\ncanary\n/);
    assert.equal(readFileSync(canary, 'utf8'), 'canary\n');
    assert.equal(existsSync(path.join(workspaceDir(), 'ro-made.txt')), false);
  });

  it("what a read assigns carries to the caller's next call; a plain read is quiet", async () => {
    const first = await invoke({ command: 'ro_value=forty-two; echo set' });
    assert.match(first, /^set\n/);
    const second = await invoke({ command: 'printf "%s\\n" "$ro_value"; cat ro-canary.txt' });
    assert.match(second, /^forty-two\ncanary\n/);
    assert.doesNotMatch(second, /read-only/);
  });

  it('`sandbox: "write"` asks, then writes in the writable sandbox', async () => {
    const t = await testing();
    await answerDialogs('Allow once');
    const asked = t.services.prompter.asked.length;
    await invoke({ command: 'sort ro-canary.txt -o ro-made.txt', sandbox: 'write' });
    assert.equal(t.services.prompter.asked.length, asked + 1);
    assert.equal(readFileSync(path.join(workspaceDir(), 'ro-made.txt'), 'utf8'), 'canary\n');
  });
});
