import * as assert from 'node:assert/strict';
import type { ApprovalAnswer, ApprovalRequest, Approver, CallerInfo, PolicyDecision, PolicyRule, ShellAnalyzer } from '../../../../src/core/contracts';
import { decide } from '../../../../src/core/policy/policy';
import {
  commandDeniedMessage,
  envRiskReason,
  gateDecision,
  passPolicyGate,
  userDeniedMessage,
  withEnvRisk,
  envNotInertReason,
  type GateDeps,
} from '../../../../src/core/policy/policyGate';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';

const WS = '/work/project';
const RULES: PolicyRule[] = [
  { match: 'echo *', approval: 'allow' },
  { match: 'npm *', approval: 'prompt' },
  { match: 'rm *', approval: 'deny' },
];
let analyzer: ShellAnalyzer;
const realDecide = (command: string, cwd: string): PolicyDecision => decide(analyzer.analyze(command), RULES, { cwd, workspaceRoots: [WS] });

class RecordingApprover implements Approver {
  requests: ApprovalRequest[] = [];
  signals: Array<AbortSignal | undefined> = [];
  constructor(public answer: ApprovalAnswer | (() => Promise<ApprovalAnswer>) = { kind: 'allow' }) {}
  approve(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer> {
    this.requests.push(req);
    this.signals.push(signal);
    return typeof this.answer === 'function' ? this.answer() : Promise.resolve(this.answer);
  }
}

function deps(approver: Approver, decideFn: GateDeps['decide'] = realDecide): GateDeps {
  return { decide: decideFn, approver };
}

function fixed(decision: Partial<PolicyDecision> & Pick<PolicyDecision, 'decision' | 'kind' | 'reason'>): GateDeps['decide'] {
  return () => ({ rule: null, segments: [], uncertain: false, ...decision });
}

const CALLER: CallerInfo = { kind: 'acp', name: 'Test Agent', sessionId: 'acp:test#1' };

describe('core/policyGate', () => {
  before(async () => {
    analyzer = await createShellAnalyzer();
  });

  it('the denial messages keep the texts agents and tests rely on', () => {
    assert.equal(commandDeniedMessage('why'), 'Command denied: why');
    assert.equal(userDeniedMessage('why'), 'Command denied by the user: why');
    assert.equal(envRiskReason('LD_PRELOAD'), 'the `env` parameter sets `LD_PRELOAD`, which can make programs load other code');
  });

  it('allow by a rule runs without asking (decidedBy rule)', async () => {
    const approver = new RecordingApprover();
    const v = await passPolicyGate(deps(approver), { command: 'echo hi', cwd: WS });
    assert.deepEqual([v.kind, v.kind === 'run' ? v.decidedBy : undefined], ['run', 'rule']);
    assert.equal(v.decision.reason, '`echo hi` in segment 1 matched allow rule `echo *`');
    assert.equal(approver.requests.length, 0);
  });

  it('deny by a rule refuses with the exact message and never asks the approver', async () => {
    const approver = new RecordingApprover({ kind: 'allow' });
    const v = await passPolicyGate(deps(approver), { command: 'rm -rf build', cwd: WS, caller: CALLER });
    assert.deepEqual(v.kind === 'refuse' && { by: v.by, message: v.message }, {
      by: 'rule',
      message: 'Command denied: `rm -rf build` in segment 1 matched deny rule `rm *`',
    });
    assert.equal(v.decision.decision, 'deny');
    assert.equal(approver.requests.length, 0);
  });

  it('a critical deny is refused by "critical", without asking', async () => {
    const approver = new RecordingApprover();
    const v = await passPolicyGate(deps(approver, fixed({ decision: 'deny', kind: 'critical', reason: 'crit' })), { command: 'x', cwd: WS });
    assert.deepEqual(v.kind === 'refuse' && [v.by, v.message], ['critical', 'Command denied: crit']);
    assert.equal(approver.requests.length, 0);
  });

  it('prompt asks with the command, cwd, decision and caller; the signal reaches the approver', async () => {
    const approver = new RecordingApprover({ kind: 'allow' });
    const ac = new AbortController();
    const v = await passPolicyGate(deps(approver), { command: 'npm i', cwd: WS, caller: CALLER }, ac.signal);
    assert.equal(v.kind === 'run' && v.decidedBy, 'user-once');
    assert.equal(approver.requests.length, 1);
    const req = approver.requests[0]!;
    assert.equal(req.command, 'npm i');
    assert.equal(req.cwd, WS);
    assert.equal(req.decision.reason, '`npm i` in segment 1 matched prompt rule `npm *`');
    assert.deepEqual(req.caller, CALLER);
    assert.equal(approver.signals[0], ac.signal);
  });

  it('without a caller the approval request has no caller key', async () => {
    const approver = new RecordingApprover();
    await passPolicyGate(deps(approver), { command: 'npm i', cwd: WS });
    assert.equal('caller' in approver.requests[0]!, false);
  });

  const answers: Array<[ApprovalAnswer, string]> = [
    [{ kind: 'allow' }, 'user-once'],
    [{ kind: 'session' }, 'user-session'],
    [{ kind: 'always', rules: [{ match: 'npm i', approval: 'allow' }], scope: 'workspace' }, 'user-always'],
  ];
  for (const [answer, decidedBy] of answers) {
    it(`the answer ${answer.kind} runs with decidedBy ${decidedBy}`, async () => {
      const v = await passPolicyGate(deps(new RecordingApprover(answer)), { command: 'npm i', cwd: WS });
      assert.deepEqual(v.kind === 'run' && [v.decidedBy, v.decision.decision], [decidedBy, 'prompt']);
    });
  }

  it('the answer deny refuses by "user" with the user message', async () => {
    const v = await passPolicyGate(deps(new RecordingApprover({ kind: 'deny' })), { command: 'npm i', cwd: WS });
    assert.deepEqual(v.kind === 'refuse' && [v.by, v.message], [
      'user',
      'Command denied by the user: `npm i` in segment 1 matched prompt rule `npm *`',
    ]);
  });

  describe('sandbox', () => {
    it('a prompt inside an active sandbox that may auto-approve runs without asking (decidedBy sandbox)', async () => {
      const approver = new RecordingApprover({ kind: 'deny' });
      const v = await passPolicyGate(deps(approver), { command: 'npm i', cwd: WS, sandbox: { active: true, autoApprove: true } });
      assert.deepEqual(v.kind === 'run' && [v.decidedBy, v.decision.decision], ['sandbox', 'prompt']);
      assert.equal(approver.requests.length, 0);
    });

    it('an inactive sandbox, or one without auto-approve, still asks', async () => {
      for (const sandbox of [{ active: false, autoApprove: true }, { active: true, autoApprove: false }]) {
        const approver = new RecordingApprover({ kind: 'deny' });
        const v = await passPolicyGate(deps(approver), { command: 'npm i', cwd: WS, sandbox });
        assert.equal(v.kind === 'refuse' && v.by, 'user', JSON.stringify(sandbox));
        assert.equal(approver.requests.length, 1);
      }
    });

    it('a critical command asks even inside a sandbox that may auto-approve', async () => {
      for (const command of ['mkfs.ext4 /dev/sdb', 'echo x > .vscode/settings.json']) {
        const approver = new RecordingApprover({ kind: 'deny' });
        const v = await passPolicyGate(deps(approver), { command, cwd: WS, sandbox: { active: true, autoApprove: true } });
        assert.equal(v.kind === 'refuse' && v.by, 'user', command);
        assert.equal(approver.requests.length, 1, command);
        assert.equal(approver.requests[0]!.decision.kind, 'critical', command);
      }
    });

    it('deny stays deny inside the sandbox', async () => {
      const approver = new RecordingApprover();
      const v = await passPolicyGate(deps(approver), { command: 'rm x', cwd: WS, sandbox: { active: true, autoApprove: true } });
      assert.equal(v.kind === 'refuse' && v.message, 'Command denied: `rm x` in segment 1 matched deny rule `rm *`');
      assert.equal(approver.requests.length, 0);
    });

    it('an allow inside the sandbox is still decided by the rule', async () => {
      const v = await passPolicyGate(deps(new RecordingApprover()), { command: 'echo a', cwd: WS, sandbox: { active: true, autoApprove: true } });
      assert.equal(v.kind === 'run' && v.decidedBy, 'rule');
    });
  });

  describe('env risk (the decide step)', () => {
    it('a code-loading variable turns an allow into a prompt naming it; only inert names do not', async () => {
      const approver = new RecordingApprover({ kind: 'deny' });
      const v = await passPolicyGate(deps(approver), { command: 'echo hi', cwd: WS, env: { FOO: '1', BASH_ENV: './x' } });
      assert.equal(v.kind === 'refuse' && v.message, 'Command denied by the user: the `env` parameter sets `BASH_ENV`, which can make programs load other code');
      assert.equal(approver.requests[0]!.decision.kind, 'opaque');
      assert.equal(approver.requests[0]!.decision.rule, null);
      assert.equal(gateDecision(realDecide, { command: 'echo hi', cwd: WS, env: { LANG: 'C', LC_ALL: 'C.UTF-8', TZ: 'UTC', NO_COLOR: '1' } }).decision, 'allow');
      const other = gateDecision(realDecide, { command: 'echo hi', cwd: WS, env: { LANG: 'C', FOO: '1' } });
      assert.equal(other.decision, 'prompt');
      assert.equal(other.reason, envNotInertReason('FOO'));
      assert.equal(envNotInertReason('FOO'), 'the `env` parameter sets `FOO`; only inert names (locale, time zone, colour, terminal size) are auto-approved');
      for (const name of ['GIT_TRACE2_EVENT', 'LESS', 'TMPDIR', 'GCONV_PATH', 'NPM_CONFIG_SCRIPT_SHELL', 'TAR_OPTIONS', 'POSIXLY_CORRECT']) {
        assert.equal(gateDecision(realDecide, { command: 'echo hi', cwd: WS, env: { [name]: 'x' } }).decision, 'prompt', name);
      }
    });

    it('never softens a deny, and leaves a prompt as it was', () => {
      const deny = realDecide('rm x', WS);
      assert.equal(withEnvRisk(deny, { LD_PRELOAD: 'x' }), deny);
      const prompt = realDecide('npm i', WS);
      assert.equal(withEnvRisk(prompt, { LD_PRELOAD: 'x' }), prompt);
    });
  });

  describe('abort', () => {
    it('an already aborted signal never asks and runs nothing', async () => {
      const approver = new RecordingApprover();
      const ac = new AbortController();
      ac.abort();
      const v = await passPolicyGate(deps(approver), { command: 'npm i', cwd: WS }, ac.signal);
      assert.equal(v.kind, 'aborted');
      assert.equal(approver.requests.length, 0);
    });

    it('an abort while the dialog is open answers aborted without waiting for the dialog', async () => {
      const ac = new AbortController();
      const approver = new RecordingApprover(() => new Promise<ApprovalAnswer>(() => undefined));
      const pending = passPolicyGate(deps(approver), { command: 'npm i', cwd: WS }, ac.signal);
      await Promise.resolve();
      ac.abort();
      assert.equal((await pending).kind, 'aborted');
    });

    it('an approver that answers allow after the abort does not run the command', async () => {
      const ac = new AbortController();
      const approver = new RecordingApprover(async () => {
        ac.abort();
        return { kind: 'allow' };
      });
      assert.equal((await passPolicyGate(deps(approver), { command: 'npm i', cwd: WS }, ac.signal)).kind, 'aborted');
    });

    it('deny and allow are decided before the signal matters', async () => {
      const ac = new AbortController();
      ac.abort();
      assert.equal((await passPolicyGate(deps(new RecordingApprover()), { command: 'rm x', cwd: WS }, ac.signal)).kind, 'refuse');
      assert.equal((await passPolicyGate(deps(new RecordingApprover()), { command: 'echo x', cwd: WS }, ac.signal)).kind, 'run');
    });
  });
});
