import * as assert from 'node:assert/strict';
import type { PolicyRule, RuleLayer, ShellAnalyzer } from '../../../../../src/core/contracts';
import { decide } from '../../../../../src/core/policy/policy';
import { checkProposal, EXAMPLE_FILLS, findRestrictingRule, PROPOSAL_NOTES } from '../../../../../src/core/policy/rules/proposalCheck';
import { globExamples } from '../../../../../src/core/policy/rules/ruleGlob';
import { builtinLayer } from '../../../../../src/core/policy/rules/ruleLayers';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';

const WS = '/work/project';
const CTX = { cwd: WS, workspaceRoots: [WS] };
const layer = (name: RuleLayer['layer'], rules: PolicyRule[], source = `${name} settings`): RuleLayer => ({ layer: name, source, rules });

describe('core/ruleGlob: globExamples', () => {
  it('fills each * with each representative string and keeps only texts the glob matches', () => {
    assert.deepEqual(globExamples('echo secret*', EXAMPLE_FILLS), ['echo secret', 'echo secretx', 'echo secret-a3', 'echo secret x', 'echo secret -f /tmp/x', 'echo secret/']);
    // A trailing ` *` also matches the bare command.
    assert.deepEqual(globExamples('rm *', ['', 'x']), ['rm', 'rm x']);
    assert.deepEqual(globExamples('make {build,test}', EXAMPLE_FILLS), ['make build', 'make test']);
    assert.deepEqual(globExamples('git st?tus [ab] [!x]', ['']), ['git stxtus a _']);
    assert.deepEqual(globExamples('a\\*b', EXAMPLE_FILLS), ['a*b']);
  });
});

describe('core/policy: checking rules before Always allow saves them', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const check = (command: string, layers: RuleLayer[]) => checkProposal(analyzer.analyze(command), layers);

  it("narrows `echo *` to the exact command when a deny rule was written for `echo secret*` (the issue's case)", () => {
    const user = layer('user', [{ match: 'echo secret*', approval: 'deny' }]);
    const c = check('echo hello', [user]);
    assert.deepEqual(c.rules, [{ match: 'echo hello', approval: 'allow' }]);
    assert.equal(c.caughtBy, undefined);
    assert.deepEqual(c.notes, ['`echo *` would also allow `echo secret`, which deny rule `echo secret*` (user settings) covers: saving `echo hello` instead']);
    // Saved at the end of the user layer, the secret stays denied and the approved command runs.
    const after = [layer('user', [...user.rules, ...c.rules])];
    assert.equal(decide(analyzer.analyze('echo secret-a3'), after, CTX).decision, 'deny');
    assert.equal(decide(analyzer.analyze('echo hello'), after, CTX).decision, 'allow');
  });

  it('narrows `git commit *` under a deny on `git commit --no-verify*` from another layer', () => {
    const c = check("git commit -m 'fix'", [layer('managed', [{ match: 'git commit --no-verify*', approval: 'deny' }], '/etc/agent-bash/rules.json')]);
    assert.deepEqual(c.rules, [{ match: 'git commit -m fix', approval: 'allow' }]);
    assert.deepEqual(c.notes, [PROPOSAL_NOTES.narrowed('git commit *', 'git commit -m fix', 'git commit --no-verify', {
      rule: { match: 'git commit --no-verify*', approval: 'deny' }, layer: 'managed', source: '/etc/agent-bash/rules.json', text: 'git commit --no-verify',
    })]);
  });

  it('checks against prompt rules too', () => {
    const c = check('npm run build', [layer('workspace', [{ match: 'npm run publish*', approval: 'prompt' }])]);
    // `npm run build *` does not cover `npm run publish`: kept as proposed.
    assert.deepEqual(c.rules, [{ match: 'npm run build *', approval: 'allow' }]);
    assert.deepEqual(c.notes, []);
    const wide = check('docker ps', [layer('workspace', [{ match: 'docker ps --all*', approval: 'prompt' }])]);
    assert.deepEqual(wide.rules, [{ match: 'docker ps', approval: 'allow' }]);
    assert.equal(wide.notes.length, 1);
  });

  it('offers nothing for a command a deny or prompt rule of any layer catches, and says which rule and layer', () => {
    const layers = [builtinLayer(), layer('user', [{ match: 'git push *', approval: 'prompt' }]), layer('workspace', [{ match: 'git *', approval: 'allow' }])];
    const c = check('git push origin main', layers);
    assert.deepEqual(c.rules, []);
    assert.deepEqual(c.caughtBy, { rule: { match: 'git push *', approval: 'prompt' }, layer: 'user', source: 'user settings', text: 'git push origin main' });
    assert.deepEqual(c.notes, ['`git push origin main` matches prompt rule `git push *` (user settings), so it cannot be always allowed']);
    // Caught in one segment of a compound command (that also asks for another reason): nothing is offered.
    const compound = check('ls && curl https://x.example > out.txt', [builtinLayer(), layer('managed', [{ match: 'curl *', approval: 'prompt' }], '/etc/agent-bash/rules.json')]);
    assert.deepEqual(compound.rules, []);
    assert.equal(compound.caughtBy?.layer, 'managed');
    assert.equal(findRestrictingRule(analyzer.analyze('ls -la'), layers), undefined);
  });

  it('a wrapper does not hide the command from the deny rule that catches it', () => {
    const c = check('sudo rm -rf /tmp/x', [layer('user', [{ match: 'rm *', approval: 'deny' }])]);
    assert.deepEqual(c.rules, []);
    assert.equal(c.caughtBy?.rule.match, 'rm *');
  });

  it('an allow written before a broader deny does not make the command always-allowable', () => {
    // `echo x` is allowed by a rule, but the deny rule `echo *` of the same layer wins: the line is
    // refused, and Always allow… is not offered for any of its segments.
    const user = layer('user', [{ match: 'echo x', approval: 'allow' }, { match: 'echo *', approval: 'deny' }]);
    assert.equal(decide(analyzer.analyze('touch y && echo x'), [user], CTX).decision, 'deny');
    const c = check('touch y && echo x', [user]);
    assert.equal(c.caughtBy?.rule.match, 'echo *');
    assert.deepEqual(c.rules, []);
    assert.deepEqual(c.notes, ['`echo x` matches deny rule `echo *` (user settings), so it cannot be always allowed']);
  });

  it('keeps what no rule forbids, segment by segment', () => {
    const c = check('git status && npm test', [layer('user', [{ match: 'rm *', approval: 'deny' }, { match: 'npm test --update*', approval: 'deny' }])]);
    assert.deepEqual(c.rules, [{ match: 'git status *', approval: 'allow' }, { match: 'npm test', approval: 'allow' }]);
    assert.equal(c.notes.length, 1);
    assert.deepEqual(check('git status', []).rules, [{ match: 'git status *', approval: 'allow' }]);
  });

  it('fills a deny rule\'s * with the words of the command being approved', () => {
    // `git * --prune` was written for `git fetch --prune` too: `git fetch *` would allow it.
    const f = check('git fetch origin', [layer('user', [{ match: 'git * --prune', approval: 'deny' }])]);
    assert.deepEqual(f.rules, [{ match: 'git fetch origin', approval: 'allow' }]);
    assert.deepEqual(f.notes, ['`git fetch *` would also allow `git fetch --prune`, which deny rule `git * --prune` (user settings) covers: saving `git fetch origin` instead']);
  });

  it('offers nothing for an uncertain command', () => {
    assert.deepEqual(check('echo "unterminated', []), { rules: [], notes: [], segments: [] });
  });
});
