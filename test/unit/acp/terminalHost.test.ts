import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as assert from 'node:assert/strict';
import { rejection } from './acpRejection';
import type {
  BridgeCreateOptions,
  ApprovalAnswer,
  ApprovalRequest,
  CallerInfo,
  CreateTerminalParams,
  PolicyDecision,
  PolicyRule,
  ShellAnalyzer,
} from '../../../src/core/contracts';
import { ACP_SANDBOX_RETRY, AcpTerminalHost, COMMAND_DENIED_CODE, NO_POLICY_REASON, type TerminalBridgeLike } from '../../../src/acp/terminalHost';
import { decide } from '../../../src/core/policy/policy';
import { createShellAnalyzer } from '../../../src/core/policy/analysis/shellAnalysis';
import { FakeTerminalHandle } from '../core/bridgeFakes';

// A real folder: the host checks the cwd exists before the gate (the tool's own cwd messages).
const WS = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-acp-ws-'));
mkdirSync(path.join(WS, 'sub'));
after(() => rmSync(WS, { recursive: true, force: true }));
const RULES: PolicyRule[] = [
  { match: 'echo *', approval: 'allow' },
  { match: 'npm *', approval: 'prompt' },
  { match: 'rm *', approval: 'deny' },
];
const CALLER: CallerInfo = { kind: 'acp', name: 'Agent X', sessionId: 'acp:Agent X#1' };

class FakeBridge implements TerminalBridgeLike {
  created: CreateTerminalParams[] = [];
  options: Array<BridgeCreateOptions | undefined> = [];
  handles: FakeTerminalHandle[] = [];
  async createTerminal(params: CreateTerminalParams, options?: BridgeCreateOptions): Promise<FakeTerminalHandle> {
    this.created.push(params);
    this.options.push(options);
    const handle = new FakeTerminalHandle(`term-${this.created.length}`);
    this.handles.push(handle);
    return handle;
  }
  async releaseOwner(): Promise<void> {}
}

describe('acp AcpTerminalHost (policy gate)', () => {
  let analyzer: ShellAnalyzer;
  let bridge: FakeBridge;
  let requests: ApprovalRequest[];
  let answer: ApprovalAnswer;
  let policyLoaded: boolean;
  const logs: string[] = [];

  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  beforeEach(() => {
    bridge = new FakeBridge();
    requests = [];
    answer = { kind: 'allow' };
    policyLoaded = true;
    logs.length = 0;
  });

  function host(): AcpTerminalHost {
    return new AcpTerminalHost({
      bridge,
      decide: (command, cwd): PolicyDecision | undefined =>
        policyLoaded ? decide(analyzer.analyze(command), RULES, { cwd, workspaceRoots: [WS] }) : undefined,
      approver: {
        approve: async (req) => {
          requests.push(req);
          return answer;
        },
      },
      caller: CALLER,
      owner: 'acp:x',
      defaultCwd: () => WS,
      log: (m) => logs.push(m),
    });
  }
  const signal = () => new AbortController().signal;

  it('an allowed command creates a terminal without asking', async () => {
    assert.deepEqual(await host().create({ command: 'echo', args: ['hi'] }, signal()), { terminalId: 'term-1' });
    assert.deepEqual(bridge.created, [{ command: 'echo', args: ['hi'] }]);
    assert.equal(requests.length, 0);
    assert.deepEqual(logs, [`terminal/create "echo hi" in ${WS}: allow (\`echo hi\` in segment 1 matched allow rule \`echo *\`) → runs (rule)`]);
  });

  it('an auto-approved read goes to the bridge with its read-only plan where the fence holds; asked or unfenced lines do not', async () => {
    const fenced = (enforced: boolean) =>
      new AcpTerminalHost({
        bridge,
        decide: (command, cwd) => decide(analyzer.analyze(command), [{ layer: 'builtin', source: 'built-in read-only list', rules: [{ match: 'ls *', approval: 'allow' }] }, { layer: 'user', source: 'user settings', rules: RULES }], { cwd, workspaceRoots: [WS] }),
        approver: { approve: async () => ({ kind: 'allow' }) },
        sandbox: { levelFor: () => 'sandboxed', autoApprove: () => false, readOnly: () => (enforced ? { enforced: true } : { enforced: false, why: 'no' }) },
        caller: CALLER,
        owner: 'acp:x',
        defaultCwd: () => WS,
        log: () => undefined,
      });
    await fenced(true).create({ command: 'ls', args: ['-la'] }, signal());
    await fenced(true).create({ command: 'npm', args: ['ls'] }, signal());
    await fenced(false).create({ command: 'ls' }, signal());
    assert.deepEqual(bridge.options.map((o) => o?.readOnly), [{ programs: ['ls'] }, undefined, undefined]);
  });

  it('deny is JSON-RPC -32001 naming the rule; the user is not asked and no terminal is created', async () => {
    const err = await rejection(host().create({ command: 'rm', args: ['-rf', 'build'] }, signal()));
    assert.equal(err.code, COMMAND_DENIED_CODE);
    assert.equal(err.code, -32001);
    assert.equal(err.message, 'Command denied: `rm -rf build` in segment 1 matched deny rule `rm *`');
    assert.deepEqual(err.data, { decision: 'deny', rule: 'rm *', reason: '`rm -rf build` in segment 1 matched deny rule `rm *`' });
    assert.equal(requests.length, 0);
    assert.equal(bridge.created.length, 0);
  });

  it('prompt asks with the agent as caller; the user’s deny is -32001 and nothing is created', async () => {
    answer = { kind: 'deny' };
    const err = await rejection(host().create({ command: 'npm', args: ['i'], cwd: path.join(WS, 'sub') }, signal()));
    assert.equal(err.message, 'Command denied by the user: `npm i` in segment 1 matched prompt rule `npm *`');
    assert.equal(err.code, -32001);
    assert.equal(requests.length, 1);
    assert.equal(requests[0]!.command, 'npm i');
    assert.equal(requests[0]!.cwd, path.join(WS, 'sub'));
    assert.deepEqual(requests[0]!.caller, CALLER);
    assert.equal(bridge.created.length, 0);
  });

  it('a risky env entry makes an allowed command ask (the gate’s env step)', async () => {
    answer = { kind: 'deny' };
    const err = await rejection(host().create({ command: 'echo', args: ['hi'], env: [{ name: 'LD_PRELOAD', value: '/tmp/x.so' }] }, signal()));
    assert.equal(err.message, 'Command denied by the user: the `env` parameter sets `LD_PRELOAD`, which can make programs load other code');
    assert.equal(bridge.created.length, 0);
  });

  it('with no policy loaded every command asks, with the no-policy reason', async () => {
    policyLoaded = false;
    answer = { kind: 'session' };
    await host().create({ command: 'echo', args: ['hi'] }, signal());
    assert.equal(requests[0]!.decision.reason, NO_POLICY_REASON);
    assert.equal(bridge.created.length, 1);
  });

  it('a cancelled request (abort while asking) is -32800 and creates nothing', async () => {
    const ac = new AbortController();
    const h = new AcpTerminalHost({
      bridge,
      decide: (command, cwd) => decide(analyzer.analyze(command), RULES, { cwd, workspaceRoots: [WS] }),
      approver: { approve: () => new Promise<ApprovalAnswer>(() => undefined) },
      owner: 'acp:x',
      defaultCwd: () => WS,
      log: () => undefined,
    });
    const pending = rejection(h.create({ command: 'npm', args: ['i'] }, ac.signal));
    await Promise.resolve();
    ac.abort();
    const err = await pending;
    assert.equal(err.code, -32800);
    assert.equal(bridge.created.length, 0);
  });

  it('a command the person just allowed in the agent\'s own permission question is not asked again; deny still denies', async () => {
    const allowed = new Set(['npm i', 'rm -rf x']);
    const h = new AcpTerminalHost({
      bridge,
      decide: (command, cwd) => decide(analyzer.analyze(command), RULES, { cwd, workspaceRoots: [WS] }),
      approver: { approve: async (req) => (requests.push(req), answer) },
      owner: 'acp:x',
      defaultCwd: () => WS,
      log: () => undefined,
      alreadyAllowed: (line) => allowed.delete(line),
    });
    assert.deepEqual(await h.create({ command: 'npm', args: ['i'] }, signal()), { terminalId: 'term-1' });
    assert.equal(requests.length, 0);
    // Once: the same line again asks.
    await h.create({ command: 'npm', args: ['i'] }, signal());
    assert.equal(requests.length, 1);
    const err = await rejection(h.create({ command: 'bash', args: ['-c', 'rm -rf x'] }, signal()));
    assert.equal(err.code, COMMAND_DENIED_CODE);
    assert.equal(bridge.created.length, 2);
  });

  it("a sandboxed command's output names what the sandbox refused and how to retry, once it has exited", async () => {
    const h = new AcpTerminalHost({
      bridge,
      decide: (command, cwd) => decide(analyzer.analyze(command), RULES, { cwd, workspaceRoots: [WS] }),
      approver: { approve: async () => answer },
      owner: 'acp:x',
      defaultCwd: () => WS,
      log: () => undefined,
      sandbox: { levelFor: () => 'sandboxed', autoApprove: () => false },
      sandboxRefusal: (output) => (output.includes('Read-only file system') ? 'The OS sandbox refused writing /etc/x.' : undefined),
    });
    const { terminalId } = await h.create({ command: 'echo', args: ['hi'] }, signal());
    const handle = bridge.handles[0];
    handle.output = 'bash: /etc/x: Read-only file system';
    assert.equal((await h.output(terminalId)).output, 'bash: /etc/x: Read-only file system');
    handle.currentOutputBehaviour = () => Promise.resolve({ output: handle.output, truncated: false, exitStatus: { exitCode: 1, signal: null } });
    assert.equal(
      (await h.output(terminalId)).output,
      `bash: /etc/x: Read-only file system\n[The OS sandbox refused writing /etc/x. ${ACP_SANDBOX_RETRY}]\n`,
    );
  });
});

