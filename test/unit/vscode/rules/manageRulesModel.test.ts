// Manage Rules without VS Code: rows of a settings array (invalid entries shown with why), the edits
// of the user and workspace layers, and a tried command in plain words.
import * as assert from 'node:assert/strict';
import type { PolicyDecision, Segment } from '../../../../src/core/contracts';
import { applyRuleEdit, layerTitle, rowsOfRaw, tryView, type RuleEdit } from '../../../../src/vscode/rules/manageRulesModel';

const WHERE = 'workspace settings';
const base = [
  { match: 'git status *', approval: 'allow' },
  { match: 'rm *', approval: 'deny' },
  { match: 'npm test *', approval: 'prompt', allowRedirects: true },
];

function ok(raw: unknown, edit: RuleEdit): unknown[] | undefined {
  const r = applyRuleEdit(raw, edit, WHERE);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}
function refused(raw: unknown, edit: RuleEdit): string {
  const r = applyRuleEdit(raw, edit, WHERE);
  if (r.ok) throw new Error(`accepted: ${JSON.stringify(r.value)}`);
  return r.message;
}

describe('vscode/manageRulesModel', () => {
  it('rows keep the position of every entry; invalid ones say why they are ignored', () => {
    const { rows, problem } = rowsOfRaw([base[0], { match: 'x', approval: 'maybe' }, { match: '', approval: 'allow' }, 'ls', base[2]]);
    assert.equal(problem, undefined);
    assert.deepEqual(rows, [
      { index: 0, match: 'git status *', approval: 'allow', allowRedirects: false },
      { index: 1, match: 'x', approval: 'maybe', allowRedirects: false, problem: 'ignored: approval: approval must be "allow", "prompt" or "deny"' },
      { index: 2, match: '', approval: 'allow', allowRedirects: false, problem: 'ignored: match: match must not be empty' },
      { index: 3, match: '"ls"', approval: '?', allowRedirects: false, problem: 'ignored: a rule must be an object' },
      { index: 4, match: 'npm test *', approval: 'prompt', allowRedirects: true },
    ]);
    assert.deepEqual(rowsOfRaw(undefined), { rows: [] });
    assert.deepEqual(rowsOfRaw({ match: 'x' }), { rows: [], problem: 'agentBash.patterns: expected a JSON array of rules' });
  });

  it('add appends at the end of the layer (trimmed), and refuses invalid or repeated rules', () => {
    assert.deepEqual(ok(base, { op: 'add', match: '  ls -la *  ', approval: 'allow' }), [...base, { match: 'ls -la *', approval: 'allow' }]);
    assert.deepEqual(ok(undefined, { op: 'add', match: 'echo *', approval: 'deny', allowRedirects: true }), [{ match: 'echo *', approval: 'deny', allowRedirects: true }]);
    assert.equal(refused(base, { op: 'add', match: '   ', approval: 'allow' }), 'Not added: match: match must not be empty.');
    assert.equal(refused(base, { op: 'add', match: 'x', approval: 'yes' }), 'Not added: approval: approval must be "allow", "prompt" or "deny".');
    assert.equal(refused(base, { op: 'add', match: 'rm *', approval: 'deny' }), 'Not added: deny `rm *` is already in workspace settings.');
    assert.equal(refused({ not: 'a list' }, { op: 'add', match: 'x', approval: 'allow' }), 'The rules in workspace settings are not a list; fix agentBash.patterns there first.');
    // The same glob with another verdict is a different rule.
    assert.equal(ok(base, { op: 'add', match: 'rm *', approval: 'prompt' })?.length, 4);
  });

  it('move and remove act on the rule the person saw; a list that changed meanwhile is left alone', () => {
    assert.deepEqual(ok(base, { op: 'move', index: 2, match: 'npm test *', to: 0 }), [base[2], base[0], base[1]]);
    assert.deepEqual(ok(base, { op: 'move', index: 0, match: 'git status *', to: 1 }), [base[1], base[0], base[2]]);
    assert.deepEqual(ok(base, { op: 'remove', index: 1, match: 'rm *' }), [base[0], base[2]]);
    // Removing the last rule removes the setting.
    assert.equal(ok([base[0]], { op: 'remove', index: 0, match: 'git status *' }), undefined);
    const changed = 'The rules in workspace settings changed meanwhile; nothing was changed. The list now shows them as they are.';
    assert.equal(refused(base, { op: 'remove', index: 1, match: 'git status *' }), changed);
    assert.equal(refused(base, { op: 'remove', index: 7, match: 'rm *' }), changed);
    assert.equal(refused(base, { op: 'remove', index: -1, match: 'rm *' }), changed);
    assert.equal(refused(base, { op: 'move', index: 0, match: 'git status *', to: 3 }), '`git status *` cannot move there: workspace settings has 3 rules.');
    assert.equal(refused(base, { op: 'move', index: 0, match: 'git status *', to: -1 }), '`git status *` cannot move there: workspace settings has 3 rules.');
    assert.equal(refused(base, { op: 'rename', index: 0, match: 'x' } as unknown as RuleEdit), 'Unknown change; nothing was changed.');
    assert.equal(refused(base, null as unknown as RuleEdit), 'Unknown change; nothing was changed.');
    // An invalid entry can be moved or removed like any other (by what it shows).
    assert.deepEqual(ok([base[0], 'junk'], { op: 'remove', index: 1, match: '"junk"' }), [base[0]]);
    // The input array is not changed in place.
    assert.equal(base.length, 3);
  });

  it('a tried command in plain words, with the deciding rule\'s layer when known', () => {
    const seg = (text: string): Segment => ({ text, argv: text.split(' '), assignments: [], redirects: [], consumesPipe: false, opaque: false, dynamic: false, start: 0, end: text.length, source: text });
    const rule = { match: 'git push *', approval: 'deny' as const };
    const d: PolicyDecision = {
      decision: 'deny',
      rule,
      layer: 'managed',
      layerSource: '/etc/agent-bash/rules.json',
      kind: 'rule',
      segmentIndex: 2,
      reason: '`git push origin` in segment 2 matched deny rule `git push *`',
      segments: [
        { segment: seg('git status'), decision: 'allow', rule: { match: 'git status *', approval: 'allow' } },
        { segment: seg('git push origin'), decision: 'deny', rule },
      ],
      uncertain: false,
    };
    assert.deepEqual(tryView('git status && git push origin', d), {
      command: 'git status && git push origin',
      verdict: 'deny',
      headline: 'Refused: it does not run.',
      because: '`git push origin` matched deny rule `git push *`. Rule `git push *` is from managed rules (/etc/agent-bash/rules.json).',
      segments: [
        { text: 'git status', verdict: 'allow', rule: 'git status *' },
        { text: 'git push origin', verdict: 'deny', rule: 'git push *' },
      ],
    });
    const asks = tryView('make', { ...d, decision: 'prompt', rule: null, kind: 'default', reason: 'no rule matched.', segments: [{ segment: seg('make'), decision: 'prompt', rule: null }] });
    assert.equal(asks.headline, 'Asks you first.');
    assert.equal(asks.because, 'no rule matched.');
    assert.deepEqual(asks.segments, [{ text: 'make', verdict: 'prompt' }]);
  });

  it('layer titles', () => {
    assert.equal(layerTitle('builtin'), 'Built-in list');
    assert.equal(layerTitle('managed', '/etc/agent-bash/rules.json'), 'Managed rules (/etc/agent-bash/rules.json)');
    assert.equal(layerTitle('folder', 'api'), 'Folder settings (api)');
  });
});
