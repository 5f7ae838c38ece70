// Issue 31 in Manage Rules: conflicts shown on the rules, a removal that can be undone, and the Try
// box naming every deny and ask rule that matched.
import * as assert from 'node:assert/strict';
import type { PolicyRule, RuleLayer, ShellAnalyzer } from '../../../../src/core/contracts';
import { decidedBy, decisionLabel } from '../../../../src/core/history';
import { explainMarkdown } from '../../../../src/core/explainText';
import { decide } from '../../../../src/core/policy/policy';
import { CONFLICT_MESSAGES, ruleConflicts } from '../../../../src/core/policy/rules/ruleConflicts';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { applyRuleEdit, rowsOfRaw, tryView, withConflicts, type LayerView } from '../../../../src/vscode/rules/manageRulesModel';

const WHERE = 'user settings';

describe('vscode/rules: conflicts, undo and the Try box (issue 31)', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });

  it('an allow that a deny or ask rule always overrides, in any layer or order, says which', () => {
    const found = ruleConflicts([
      { layer: 'user', rules: [{ match: 'touch secret*', approval: 'allow' }, { match: 'touch *', approval: 'allow' }, { match: 'git push *', approval: 'allow' }] },
      { layer: 'workspace', rules: [{ match: 'touch secret*', approval: 'deny' }, { match: 'git *', approval: 'prompt' }] },
    ]);
    assert.deepEqual(found[0], [
      [CONFLICT_MESSAGES.overridden({ match: 'touch secret*', approval: 'deny' }, 'workspace settings')],
      [],
      [CONFLICT_MESSAGES.overridden({ match: 'git *', approval: 'prompt' }, 'workspace settings')],
    ]);
    assert.equal(found[0][0][0], 'never applies: the deny rule `touch secret*` (workspace settings) matches every command it matches, and wins');
    assert.deepEqual(found[1], [[], []]);
    // An exact allow of a command a glob deny catches.
    const exact = ruleConflicts([{ layer: 'user', rules: [{ match: 'touch secret.txt', approval: 'allow', exact: true }, { match: 'touch secret*', approval: 'deny' }] }]);
    assert.deepEqual(exact[0][0], [CONFLICT_MESSAGES.overridden({ match: 'touch secret*', approval: 'deny' }, 'user settings')]);
  });

  it('an allow whose first word is not a command word can never match; duplicates are named', () => {
    const found = ruleConflicts([
      {
        layer: 'user',
        rules: [
          { match: '/usr/bin/ls *', approval: 'allow' },
          { match: '--help', approval: 'allow' },
          { match: 'FOO=1 make *', approval: 'allow' },
          { match: '/usr/bin/rm *', approval: 'deny' },
          { match: 'ls *', approval: 'allow' },
          undefined,
          { match: 'ls  *', approval: 'allow' },
        ],
      },
      { layer: 'workspace', rules: [{ match: 'ls *', approval: 'allow' }] },
    ]);
    assert.deepEqual(found[0], [
      ['can never match: `/usr/bin/ls` is not a command word (rules see the program\'s name, `ls`, not its path)'],
      ['can never match: `--help` is not a command word (it is an option)'],
      ['can never match: `FOO=1` is not a command word (an assignment before a command is not part of the text rules see)'],
      // A deny also sees the command as written, path and all: no warning.
      [],
      [],
      [],
      [CONFLICT_MESSAGES.duplicate(5, 'user settings')],
    ]);
    assert.deepEqual(found[1], [['duplicate of rule 5 in user settings']]);
  });

  it('withConflicts sets them on the rows the view shows, invalid entries skipped', () => {
    const views: LayerView[] = [
      { layer: 'user', title: 'User settings', source: 'x', editable: true, rules: rowsOfRaw([{ match: 'touch *', approval: 'allow' }, { match: 'x', approval: 'maybe' }, { match: 'touch *', approval: 'deny' }]).rows },
    ];
    const out = withConflicts(views);
    assert.deepEqual(out[0].rules.map((r) => r.conflicts), [[CONFLICT_MESSAGES.overridden({ match: 'touch *', approval: 'deny' }, 'user settings')], undefined, undefined]);
  });

  it('a removal can be undone: the entry goes back where it was, exactly as written', () => {
    const raw = [{ match: 'ls *', approval: 'allow' }, { match: 'touch secret*', approval: 'deny', allowRedirects: false }, { match: 'git *', approval: 'allow' }];
    const removed = applyRuleEdit(raw, { op: 'remove', index: 1, match: 'touch secret*' }, WHERE);
    assert.ok(removed.ok);
    assert.deepEqual(removed.removed, { index: 1, entry: raw[1] });
    assert.deepEqual(removed.value, [raw[0], raw[2]]);
    const back = applyRuleEdit(removed.value, { op: 'restore', index: 1, entry: raw[1] }, WHERE);
    assert.deepEqual(back, { ok: true, value: raw, summary: 'Put `touch secret*` back at position 2 of user settings.' });
    assert.deepEqual(applyRuleEdit([], { op: 'restore', index: 0, entry: { match: 'x' } }, WHERE), { ok: false, message: 'Nothing to undo.' });
  });

  it('add takes an exact rule and refuses an invalid one with the exact reason', () => {
    const added = applyRuleEdit([], { op: 'add', match: "touch 'a b'", approval: 'allow', exact: true }, WHERE);
    assert.deepEqual(added, { ok: true, value: [{ match: "touch 'a b'", approval: 'allow', exact: true }], summary: "Added allow `touch 'a b'` at the end of user settings." });
    assert.deepEqual(applyRuleEdit([], { op: 'add', match: 'touch *', approval: 'allow', exact: true }, WHERE), {
      ok: false,
      message: 'Not added: match: an exact match is one command\'s words without wildcards or shell syntax: quote `*` (at character 7) or drop "exact".',
    });
    assert.deepEqual(rowsOfRaw([{ match: 'touch a', approval: 'allow', exact: true }]).rows, [{ index: 0, match: 'touch a', approval: 'allow', allowRedirects: false, exact: true }]);
  });

  it('the Try box, Explain and History name the rule that decided and every deny and ask that matched', () => {
    const layers: RuleLayer[] = [
      { layer: 'user', source: 'user settings', rules: [{ match: 'git *', approval: 'allow' }, { match: 'git push *', approval: 'prompt' }] },
      { layer: 'workspace', source: 'workspace settings', rules: [{ match: 'git push --force*', approval: 'deny' }] as PolicyRule[] },
    ];
    const command = 'git push --force origin';
    const d = decide(analyzer.analyze(command), layers, { cwd: '/w', workspaceRoots: ['/w'] });
    const view = tryView(command, d);
    assert.equal(view.verdict, 'deny');
    assert.equal(view.because, '`git push --force origin` matched deny rule `git push --force*`. Rule `git push --force*` is from workspace settings.');
    assert.deepEqual(view.matched, [
      'deny rule `git push --force*` from workspace settings decided (matched `git push --force origin`)',
      'ask rule `git push *` from user settings (matched `git push --force origin`)',
    ]);
    const md = explainMarkdown(command, d);
    assert.ok(
      md.includes('## Deny and ask rules that matched\n\nDeny beats ask beats allow, whatever the order of the rules.\n\n- the deny rule `git push --force*` in workspace settings matches `git push --force origin` (it decided)\n- the ask rule `git push *` in user settings matches `git push --force origin`\n'),
      md,
    );
    const entry = decidedBy({ decision: 'deny', rule: 'git push --force*', layer: 'workspace', layerSource: 'workspace settings', alsoMatched: ['ask rule `git push *` from user settings'] }, false);
    assert.equal(decisionLabel(entry), 'denied by rule `git push --force*` from workspace settings; also matched ask rule `git push *` from user settings');
    // Nothing restrictive matched: no list, and the view keeps its old shape.
    const ok = tryView('git status', decide(analyzer.analyze('git status'), layers, { cwd: '/w', workspaceRoots: ['/w'] }));
    assert.equal(ok.matched, undefined);
    assert.equal('matched' in ok, false);
  });
});
