// The approval dialog's steps without VS Code: a scripted asker answers by button label and records
// every question, a fake rule store records what would be saved.
import * as assert from 'node:assert/strict';
import type { RuleLayer, ApprovalRequest, PolicyDecision, PolicyRule, Segment } from '../../../../src/core/contracts';
import { decisionLabel, type HistoryDecision } from '../../../../src/core/history';
import { layerLabel } from '../../../../src/core/policy/rules/ruleLayerLabel';
import {
  ALLOW_ONCE,
  ALLOW_ONCE_INSTEAD,
  ALLOW_SESSION,
  ALWAYS_ALLOW,
  ALWAYS_TITLE,
  ALLOW_EXACT,
  ALLOW_LIKE,
  EDIT_PATTERNS,
  firstStepDetail,
  type PatternEditor,
  BACK,
  DENY,
  DialogApprover,
  SAVE_USER,
  SAVE_WORKSPACE,
  type RuleStore,
  type SavedRules,
} from '../../../../src/vscode/approvals/approvalDialog';
import type { ModalQuestion, QuestionAsker } from '../../../../src/vscode/approvals/modalPrompter';

function segment(text: string): Segment {
  return { text, argv: text.split(' '), assignments: [], redirects: [], consumesPipe: false, opaque: false, dynamic: false, start: 0, end: text.length, source: text };
}

function request(command: string, extra: Partial<PolicyDecision> = {}): ApprovalRequest {
  return {
    command,
    cwd: '/w',
    decision: { decision: 'prompt', rule: null, kind: 'default', reason: 'no rule', segments: [{ segment: segment(command), decision: 'prompt', rule: null }], uncertain: false, ...extra },
  };
}

/** Answers each question with the next label (undefined: the dialog was dismissed with no close button). */
class ScriptedAsker implements QuestionAsker {
  readonly asked: ModalQuestion[] = [];
  constructor(private readonly answers: Array<string | undefined>) {}
  async ask(q: ModalQuestion): Promise<string | undefined> {
    this.asked.push(q);
    if (this.asked.length > 20) throw new Error('asked more than 20 questions');
    // Escape stands for the close button, as the modal and the panel card do.
    const a = this.answers.shift();
    return a === 'Escape' ? q.closeButton : a;
  }
}

class FakeStore implements RuleStore {
  readonly added: Array<{ rules: PolicyRule[]; scope: string }> = [];
  async add(rules: PolicyRule[], scope: 'workspace' | 'user'): Promise<SavedRules> {
    this.added.push({ rules, scope });
    return { rules, scope, where: `${scope} settings` };
  }
  async remove(): Promise<void> {}
  layers(): readonly RuleLayer[] {
    return [];
  }
}

describe('vscode/approvalDialog: exact commands and editable patterns (issue 31)', () => {
  const run = async (answers: Array<string | undefined>, command: string, edit?: PatternEditor, segments?: string[]) => {
    const asker = new ScriptedAsker(answers);
    const store = new FakeStore();
    const approver = new DialogApprover(asker, store, undefined, edit);
    const req = request(command);
    if (segments) req.decision.segments = segments.map((t) => ({ segment: segment(t), decision: 'prompt' as const, rule: null }));
    const answer = await approver.approve(req);
    return { answer, asked: asker.asked, store };
  };

  it('Allow This Exact Command shows and saves an exact rule; Allow Commands Like… switches back', async () => {
    const { answer, asked, store } = await run([ALWAYS_ALLOW, ALLOW_EXACT, ALLOW_LIKE, ALLOW_EXACT, SAVE_WORKSPACE], 'touch newfile.txt');
    assert.equal(asked[2]?.detail, 'For `touch newfile.txt`:\nallow: touch newfile.txt (exactly)');
    assert.deepEqual(asked[2]?.buttons, [SAVE_WORKSPACE, SAVE_USER, ALLOW_LIKE, ALLOW_ONCE_INSTEAD, BACK]);
    assert.equal(asked[3]?.detail, 'For `touch newfile.txt`:\nallow: touch *');
    const exact: PolicyRule = { match: 'touch newfile.txt', approval: 'allow', exact: true };
    assert.deepEqual(answer, { kind: 'always', rules: [exact], scope: 'workspace' });
    assert.deepEqual(store.added, [{ rules: [exact], scope: 'workspace' }]);
  });

  it('a compound line names each command with its own rule', async () => {
    const { asked } = await run([ALWAYS_ALLOW, BACK, DENY], 'mkdir build && touch build/a', undefined, ['mkdir build', 'touch build/a']);
    assert.equal(asked[1]?.detail, 'For `mkdir build && touch build/a`:\nCommand 1, `mkdir build`: allow commands like `mkdir *`\nCommand 2, `touch build/a`: allow commands like `touch *`');
  });

  it('Edit Patterns… shows each pattern filled in, refuses a broader one with the reason, and saves the edited one', async () => {
    const edits: Array<[string, string | undefined]> = [];
    const answers = ['printf *', 'printf hi *'];
    const edit: PatternEditor = async (_p, current, problem) => {
      edits.push([current, problem]);
      return answers.shift();
    };
    const { answer, asked, store } = await run([ALWAYS_ALLOW, EDIT_PATTERNS, SAVE_USER], 'printf hi', edit);
    assert.deepEqual(asked[1]?.buttons, [SAVE_WORKSPACE, SAVE_USER, ALLOW_EXACT, EDIT_PATTERNS, ALLOW_ONCE_INSTEAD, BACK]);
    // `printf *` is the proposal itself: accepted; then the edited text is what the second step shows.
    assert.deepEqual(edits, [['printf *', undefined]]);
    assert.deepEqual(answer, { kind: 'always', rules: [{ match: 'printf *', approval: 'allow' }], scope: 'user' });
    assert.equal(store.added.length, 1);
  });

  it('an edit wider than program and subcommand is refused and asked again, a cancelled edit changes nothing', async () => {
    const edits: Array<[string, string | undefined]> = [];
    const answers: Array<string | undefined> = ['*', 'printf hi'];
    const edit: PatternEditor = async (_p, current, problem) => {
      edits.push([current, problem]);
      return answers.shift();
    };
    const { answer, asked } = await run([ALWAYS_ALLOW, EDIT_PATTERNS, SAVE_USER], 'printf hi', edit);
    assert.deepEqual(edits, [['printf *', undefined], ['*', '`*` alone would allow every command']]);
    assert.equal(asked[2]?.detail, 'For `printf hi`:\nallow: printf hi');
    assert.deepEqual(answer, { kind: 'always', rules: [{ match: 'printf hi', approval: 'allow' }], scope: 'user' });
    const cancelled = await run([ALWAYS_ALLOW, EDIT_PATTERNS, SAVE_USER], 'printf hi', async () => undefined);
    assert.deepEqual(cancelled.answer, { kind: 'always', rules: [{ match: 'printf *', approval: 'allow' }], scope: 'user' });
  });
});

describe('vscode/approvalDialog: the two steps of Always allow…', () => {
  const run = async (answers: Array<string | undefined>, command = 'printf hi') => {
    const asker = new ScriptedAsker(answers);
    const store = new FakeStore();
    const approver = new DialogApprover(asker, store);
    const answer = await approver.approve(request(command));
    return { answer, asked: asker.asked, store, approver };
  };

  it('the second step offers Save (two scopes), the exact command instead, Allow once instead and Back; Escape stands for Back', async () => {
    const { asked } = await run([ALWAYS_ALLOW, SAVE_USER]);
    assert.equal(asked.length, 2);
    assert.equal(asked[1]?.message, ALWAYS_TITLE);
    assert.deepEqual(asked[1]?.buttons, [SAVE_WORKSPACE, SAVE_USER, ALLOW_EXACT, ALLOW_ONCE_INSTEAD, BACK]);
    assert.equal(asked[1]?.closeButton, BACK);
    assert.equal(asked[1]?.detail, 'For `printf hi`:\nallow: printf *');
    // The first step still has Deny for Escape.
    assert.deepEqual(asked[0]?.buttons, [ALLOW_ONCE, ALLOW_SESSION, ALWAYS_ALLOW, DENY]);
    assert.equal(asked[0]?.closeButton, DENY);
  });

  it('Back returns to the first step, which then decides (Allow once)', async () => {
    const { answer, asked, store } = await run([ALWAYS_ALLOW, BACK, ALLOW_ONCE]);
    assert.deepEqual(answer, { kind: 'allow' });
    assert.deepEqual(asked.map((q) => q.message), ['Agent Bash: run this command?', ALWAYS_TITLE, 'Agent Bash: run this command?']);
    assert.equal(store.added.length, 0);
  });

  it('Escape on the second step goes back too (it does not deny); Deny on the first step then denies', async () => {
    const { answer, asked, store } = await run([ALWAYS_ALLOW, 'Escape', ALWAYS_ALLOW, 'Escape', DENY]);
    assert.deepEqual(answer, { kind: 'deny' });
    assert.equal(asked.length, 5);
    assert.equal(store.added.length, 0);
  });

  it('Allow once instead allows this once and saves nothing', async () => {
    const { answer, store, approver } = await run([ALWAYS_ALLOW, ALLOW_ONCE_INSTEAD]);
    assert.deepEqual(answer, { kind: 'allow' });
    assert.equal(store.added.length, 0);
    assert.equal(approver.lastSaved, undefined);
    // Not remembered for the session either: the same command asks again.
    const again = new ScriptedAsker([DENY]);
    assert.deepEqual(await approver.approve(request('printf hi'), undefined, again), { kind: 'deny' });
    assert.equal(again.asked.length, 1);
  });

  it('Save to User Settings saves the proposed rules there', async () => {
    const { answer, store } = await run([ALWAYS_ALLOW, SAVE_USER]);
    assert.deepEqual(answer, { kind: 'always', rules: [{ match: 'printf *', approval: 'allow' }], scope: 'user' });
    assert.deepEqual(store.added, [{ rules: [{ match: 'printf *', approval: 'allow' }], scope: 'user' }]);
  });

  it('a dismissed second step with no answer (a closed panel) denies and asks nothing more', async () => {
    const { answer, asked, store } = await run([ALWAYS_ALLOW, undefined, ALLOW_ONCE]);
    assert.deepEqual(answer, { kind: 'deny' });
    assert.equal(asked.length, 2);
    assert.equal(store.added.length, 0);
  });

  it('a request cancelled while the second step is open denies, whatever the answer', async () => {
    const controller = new AbortController();
    const asker: QuestionAsker = {
      ask: async (q) => {
        if (q.message === ALWAYS_TITLE) {
          controller.abort();
          return BACK;
        }
        return ALWAYS_ALLOW;
      },
    };
    const store = new FakeStore();
    const answer = await new DialogApprover(asker, store).approve(request('printf hi'), controller.signal);
    assert.deepEqual(answer, { kind: 'deny' });
    assert.equal(store.added.length, 0);
  });
});

describe('vscode/approvalDialog and core/history: the deciding rule names its layer', () => {
  it('layerLabel: every layer in plain words', () => {
    assert.equal(layerLabel('builtin', 'built-in read-only list'), 'built-in list');
    assert.equal(layerLabel('user', 'user settings'), 'user settings');
    assert.equal(layerLabel('workspace', 'workspace settings (.vscode/settings.json)'), 'workspace settings');
    assert.equal(layerLabel('folder', 'api'), 'folder settings (api)');
    assert.equal(layerLabel('folder', 'folder settings (api)'), 'folder settings (api)');
    assert.equal(layerLabel('folder'), 'folder settings');
    assert.equal(layerLabel('managed', '/etc/agent-bash/rules.json'), 'managed rules (/etc/agent-bash/rules.json)');
    assert.equal(layerLabel('file', '/tmp/team-rules.json'), '/tmp/team-rules.json');
    assert.equal(layerLabel('nonsense' as 'file', undefined), 'a rules file');
  });

  it('the approval dialog says where the rule that asks comes from, and nothing when the layer is unknown', () => {
    const rule: PolicyRule = { match: 'git push *', approval: 'prompt' };
    const withLayer = request('git push', { rule, kind: 'rule', layer: 'managed', layerSource: '/etc/agent-bash/rules.json' });
    assert.equal(
      firstStepDetail(withLayer),
      'Command: git push\nWorking directory: /w\nWhy you are asked: Rule `git push *` says to ask before `git push`.\nRule `git push *` is from managed rules (/etc/agent-bash/rules.json).',
    );
    const without = request('git push', { rule, kind: 'rule' });
    assert.equal(firstStepDetail(without), 'Command: git push\nWorking directory: /w\nWhy you are asked: Rule `git push *` says to ask before `git push`.');
  });

  it('the approval dialog says when the sandbox runs but the read-only fence cannot', () => {
    const rule: PolicyRule = { match: 'git push *', approval: 'prompt' };
    const req = { ...request('git push', { rule, kind: 'rule' }), readOnlyNotEnforced: "read-only not enforced: the kernel's Landlock ABI is 3 (the fence needs 4, Linux 6.7)" };
    assert.equal(
      firstStepDetail(req),
      "Command: git push\nWorking directory: /w\nWhy you are asked: Rule `git push *` says to ask before `git push`.\nNote: read-only not enforced: the kernel's Landlock ABI is 3 (the fence needs 4, Linux 6.7), so commands allowed as reads run on the policy's reading alone.",
    );
  });

  it('the history names the layer beside the rule, and only the rule when the layer is unknown', () => {
    // The policy side records the layer on the history decision (HistoryDecision.layer, layerSource).
    const d = (x: object) => x as HistoryDecision;
    assert.equal(decisionLabel(d({ outcome: 'denied', decidedBy: 'rule', rule: 'rm *', layer: 'user' })), 'denied by rule `rm *` from user settings');
    assert.equal(decisionLabel(d({ outcome: 'allowed', decidedBy: 'rule', rule: 'ls *', layer: 'builtin', layerSource: 'built-in read-only list' })), 'allowed by rule `ls *` from built-in list');
    assert.equal(
      decisionLabel(d({ outcome: 'denied', decidedBy: 'rule', rule: 'git push *', layer: 'managed', layerSource: '/etc/agent-bash/rules.json' })),
      'denied by rule `git push *` from managed rules (/etc/agent-bash/rules.json)',
    );
    assert.equal(decisionLabel(d({ outcome: 'allowed', decidedBy: 'rule', rule: 'ls *' })), 'allowed by rule `ls *`');
    assert.equal(decisionLabel(d({ outcome: 'denied', decidedBy: 'rule', layer: 'user' })), 'denied by the policy');
  });
});
