// A question whose request is withdrawn while it is shown (an MCP client cancelled its call or went
// away): the approver stops waiting at once, nothing runs, and a button the person presses later in
// the dialog (which an extension cannot close) runs nothing and tells them the client cancelled.
import * as assert from 'node:assert/strict';
import type { ApprovalRequest, PolicyDecision, Segment } from '../../../../src/core/contracts';
import { passPolicyGate } from '../../../../src/core/policy/policyGate';
import { ALLOW_ONCE, DENY, DialogApprover, withdrawnMessage, type RuleStore } from '../../../../src/vscode/approvals/approvalDialog';
import type { ModalQuestion, QuestionAsker } from '../../../../src/vscode/approvals/modalPrompter';
import { untilWithdrawn } from '../../../../src/vscode/approvals/withdrawable';

function segment(text: string): Segment {
  return { text, argv: text.split(' '), assignments: [], redirects: [], consumesPipe: false, opaque: false, dynamic: false, start: 0, end: text.length, source: text };
}

const decision = (command: string): PolicyDecision => ({
  decision: 'prompt',
  rule: null,
  kind: 'default',
  reason: 'no rule',
  segments: [{ segment: segment(command), decision: 'prompt', rule: null }],
  uncertain: false,
});

const request = (command: string): ApprovalRequest => ({ command, cwd: '/w', decision: decision(command), caller: { kind: 'mcp', name: 'claude-code', sessionId: 's1' } });

/** A promise with its resolve exposed: the person's click, whenever the test says. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The modal prompter's way of asking, with a dialog the test answers by hand. */
class HeldAsker implements QuestionAsker {
  readonly asked: ModalQuestion[] = [];
  readonly told: string[] = [];
  readonly clicks: Array<(answer: string | undefined) => void> = [];
  ask(question: ModalQuestion, signal?: AbortSignal): Promise<string | undefined> {
    this.asked.push(question);
    const click = deferred<string | undefined>();
    this.clicks.push(click.resolve);
    return untilWithdrawn(click.promise, question, signal, (message) => this.told.push(message));
  }
}

const store: RuleStore = {
  add: async (rules, scope) => ({ rules, scope, where: `${scope} settings` }),
  remove: async () => undefined,
  layers: () => [],
};

const question: ModalQuestion = { message: 'run?', buttons: [ALLOW_ONCE, DENY], closeButton: DENY, withdrawn: 'the client cancelled this request' };

/** Resolves once every callback queued so far has run (a late click's notice is a `then` away). */
const settled = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('vscode/approvals: a withdrawn question', () => {
  it('answers as the person did while the request stands', async () => {
    const click = deferred<string | undefined>();
    const told: string[] = [];
    const answer = untilWithdrawn(click.promise, question, new AbortController().signal, (m) => told.push(m));
    click.resolve(ALLOW_ONCE);
    assert.equal(await answer, ALLOW_ONCE);
    assert.deepEqual(told, []);
  });

  it('answers undefined at once when the request is withdrawn; a later Allow runs nothing and says why', async () => {
    const click = deferred<string | undefined>();
    const told: string[] = [];
    const controller = new AbortController();
    const answer = untilWithdrawn(click.promise, question, controller.signal, (m, a) => told.push(`${a}: ${m}`));
    controller.abort();
    assert.equal(await answer, undefined);
    click.resolve(ALLOW_ONCE);
    await settled();
    assert.deepEqual(told, [`${ALLOW_ONCE}: the client cancelled this request`]);
  });

  it('a later close (Deny, Escape) says nothing', async () => {
    for (const late of [DENY, undefined]) {
      const click = deferred<string | undefined>();
      const told: string[] = [];
      const controller = new AbortController();
      const answer = untilWithdrawn(click.promise, question, controller.signal, (m) => told.push(m));
      controller.abort();
      assert.equal(await answer, undefined);
      click.resolve(late);
      await settled();
      assert.deepEqual(told, []);
    }
  });

  it('through the policy gate: the call is aborted, not denied, nothing runs, and the late click is told the client cancelled', async () => {
    const asker = new HeldAsker();
    const approver = new DialogApprover(asker, store);
    const controller = new AbortController();
    const req = request('touch /w/x');
    const verdict = passPolicyGate({ decide: () => req.decision, approver }, { command: req.command, cwd: req.cwd, caller: req.caller }, controller.signal);
    // The dialog is up; the client cancels.
    while (asker.asked.length === 0) await settled();
    assert.equal(asker.asked[0]?.withdrawn, 'Agent Bash: claude-code cancelled this request before you answered; `touch /w/x` did not run.');
    controller.abort();
    assert.equal((await verdict).kind, 'aborted');
    // The person clicks Allow once in the dialog that stayed open.
    asker.clicks[0]?.(ALLOW_ONCE);
    await settled();
    assert.deepEqual(asker.told, [withdrawnMessage(req)]);
    assert.equal(asker.asked.length, 1, 'nobody is asked again');
    assert.equal(approver.session.has(req), false, 'a late click remembers nothing');
  });

  it('names an unnamed caller neutrally', () => {
    const req: ApprovalRequest = { command: 'ls', cwd: '/w', decision: decision('ls') };
    assert.equal(withdrawnMessage(req), 'Agent Bash: the caller cancelled this request before you answered; `ls` did not run.');
  });
});
