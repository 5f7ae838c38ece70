// Issue 31: what "Always allow…" proposes says exactly what it approves: one rule per command of the
// line that needs one, each named; exact rules on request; edited patterns never broader than the
// program and its subcommand.
import * as assert from 'node:assert/strict';
import type { PolicyRule, RuleLayer, ShellAnalyzer } from '../../../../src/core/contracts';
import { decide } from '../../../../src/core/policy/policy';
import { checkEditedPattern, checkProposal, EDIT_MESSAGES, PROPOSAL_NOTES } from '../../../../src/core/policy/rules/proposalCheck';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';

const WS = '/work/project';
const CTX = { cwd: WS, workspaceRoots: [WS] };
const user = (rules: PolicyRule[]): RuleLayer => ({ layer: 'user', source: 'user settings', rules });

/** Every subset of a list. */
function subsets<T>(items: readonly T[]): T[][] {
  return items.reduce<T[][]>((acc, x) => [...acc, ...acc.map((s) => [...s, x])], [[]]);
}

describe('core/policy: approvals that say exactly what they approve (issue 31)', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const run = (command: string, layers: RuleLayer[]) => decide(analyzer.analyze(command), layers, CTX);

  it('`curl http://x | sh`: the rule offered for curl cannot make the line run unasked, and the dialog says why', () => {
    const c = checkProposal(analyzer.analyze('curl http://x | sh'), []);
    assert.deepEqual(c.segments, [{ index: 1, text: 'curl http://x', rule: { match: 'curl http://x', approval: 'allow' } }]);
    assert.deepEqual(c.notes, [PROPOSAL_NOTES.noRule(2, 'sh')]);
    assert.equal(c.notes[0], 'command 2, `sh`, gets no rule (no rule can let it run without asking), so this line will still ask');
    for (const kind of ['like', 'exact'] as const) {
      const rules = checkProposal(analyzer.analyze('curl http://x | sh'), [], kind).rules;
      for (const accepted of subsets(rules)) assert.equal(run('curl http://x | sh', [user(accepted)]).decision, 'prompt', JSON.stringify(accepted));
    }
  });

  it('a pipeline runs without asking only when the person accepts the rule of every command', () => {
    for (const command of ['curl http://x | grep y', 'mkdir -p build/x && touch build/x/y']) {
      for (const kind of ['like', 'exact'] as const) {
        const c = checkProposal(analyzer.analyze(command), [], kind);
        assert.equal(c.segments.length, 2, command);
        assert.deepEqual(c.segments.map((s) => s.index), [1, 2]);
        for (const accepted of subsets(c.rules)) {
          const d = run(command, [user(accepted)]);
          assert.equal(d.decision, accepted.length === c.rules.length ? 'allow' : 'prompt', `${command} ${kind} ${JSON.stringify(accepted)}`);
        }
      }
    }
  });

  it('a command a rule already allows gets no proposal; only the other is named', () => {
    const c = checkProposal(analyzer.analyze('git status && touch a.txt'), [user([{ match: 'git status *', approval: 'allow' }])]);
    assert.deepEqual(c.segments, [{ index: 2, text: 'touch a.txt', rule: { match: 'touch *', approval: 'allow' } }]);
  });

  it('"Allow this exact command" saves an exact rule that does not allow the same line with one more argument', () => {
    const c = checkProposal(analyzer.analyze('touch newfile.txt'), [], 'exact');
    assert.deepEqual(c.rules, [{ match: 'touch newfile.txt', approval: 'allow', exact: true }]);
    assert.equal(run('touch newfile.txt', [user(c.rules)]).decision, 'allow');
    assert.equal(run('touch newfile.txt secret.txt', [user(c.rules)]).decision, 'prompt');
    // Words with spaces and quotes are spelled so that only the same words match.
    const q = checkProposal(analyzer.analyze(`touch "it's a file"`), [], 'exact');
    assert.deepEqual(q.rules, [{ match: `touch 'it'\\''s a file'`, approval: 'allow', exact: true }]);
    assert.equal(run(`touch "it's a file"`, [user(q.rules)]).decision, 'allow');
    assert.equal(run(`touch it\\'s a file`, [user(q.rules)]).decision, 'prompt');
    // A word bash expands has no exact spelling: nothing is offered for it.
    assert.deepEqual(checkProposal(analyzer.analyze('touch $HOME/x'), [], 'exact').rules, []);
  });

  it('an exact proposal is checked against deny rules like any other', () => {
    const layers = [user([{ match: 'touch secret*', approval: 'deny' }])];
    assert.equal(checkProposal(analyzer.analyze('touch secret.txt'), layers, 'exact').caughtBy?.rule.match, 'touch secret*');
    assert.deepEqual(checkProposal(analyzer.analyze('touch notes.txt'), layers, 'exact').rules, [{ match: 'touch notes.txt', approval: 'allow', exact: true }]);
  });

  it('an edited pattern may narrow the proposal, never widen it past program and subcommand, and must still match', () => {
    const [p] = checkProposal(analyzer.analyze('npm run test -- --watch'), []).segments;
    assert.deepEqual(p.rule, { match: 'npm run test *', approval: 'allow' });
    assert.deepEqual(checkEditedPattern('npm run test -- *', p, []), { ok: true, rule: { match: 'npm run test -- *', approval: 'allow' } });
    assert.deepEqual(checkEditedPattern('npm run *', p, []), { ok: true, rule: { match: 'npm run *', approval: 'allow' } });
    assert.deepEqual(checkEditedPattern('npm *', p, []), { ok: false, message: EDIT_MESSAGES.stem('npm run') });
    assert.deepEqual(checkEditedPattern('npm run*', p, []), { ok: false, message: EDIT_MESSAGES.stem('npm run') });
    assert.deepEqual(checkEditedPattern('*', p, []), { ok: false, message: EDIT_MESSAGES.everything });
    assert.deepEqual(checkEditedPattern('  ', p, []), { ok: false, message: EDIT_MESSAGES.empty });
    assert.deepEqual(checkEditedPattern('npm run build *', p, []), { ok: false, message: '`npm run build *` does not match `npm run test -- --watch`, so it would not allow this command' });
    const layers = [user([{ match: 'npm run deploy*', approval: 'deny' }])];
    assert.deepEqual(checkEditedPattern('npm run *', p, layers), {
      ok: false,
      message: '`npm run *` would allow `npm run deploy`, which deny rule `npm run deploy*` (user settings) covers: not saved',
    });
  });
});
