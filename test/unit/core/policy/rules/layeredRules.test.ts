import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyRule, RuleLayer, ShellAnalyzer } from '../../../../../src/core/contracts';
import { BUILTIN_LAYER_SOURCE } from '../../../../../src/core/policy/rules/builtinRules';
import { runsWithoutAsking } from '../../../../../src/core/policy/policyGate';
import { decide } from '../../../../../src/core/policy/policy';
import { builtinLayer, ManagedRulesFile, managedRulesPath, readManagedLayer, RULES_FILE_MESSAGES } from '../../../../../src/core/policy/rules/ruleLayers';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';
import { readCliRuleLayers } from '../../../../../src/cli/cliArgs';

const WS = '/work/project';
const CTX = { cwd: WS, workspaceRoots: [WS] };

const layer = (name: RuleLayer['layer'], rules: PolicyRule[], source = `${name} rules`): RuleLayer => ({ layer: name, source, rules });
const allowAll: PolicyRule = { match: '*', approval: 'allow' };

describe('core/policy: rule layers', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const run = (command: string, layers: RuleLayer[]) => decide(analyzer.analyze(command), layers, CTX);

  it('a deny in one layer beats a `*` allow in another, in both orders, and names its layer', () => {
    const deny = layer('file', [{ match: 'rm *', approval: 'deny' }], '/rules/deny.json');
    const allow = layer('file', [allowAll], '/rules/allow.json');
    for (const layers of [[deny, allow], [allow, deny]]) {
      const d = run('rm -rf build', layers);
      assert.equal(d.decision, 'deny');
      assert.deepEqual(d.rule, { match: 'rm *', approval: 'deny' });
      assert.equal(d.layer, 'file');
      assert.equal(d.layerSource, '/rules/deny.json');
      assert.equal(d.reason, '`rm -rf build` in segment 1 matched deny rule `rm *`');
      // What the deny rule does not catch, the other layer still allows.
      const ok = run('echo hi', layers);
      assert.equal(ok.decision, 'allow');
      assert.equal(ok.layerSource, '/rules/allow.json');
    }
  });

  it('a prompt in one layer beats an allow in another, in both orders', () => {
    const prompt = layer('user', [{ match: 'git push *', approval: 'prompt' }]);
    const allow = layer('workspace', [{ match: 'git *', approval: 'allow' }]);
    for (const layers of [[prompt, allow], [allow, prompt]]) {
      const d = run('git push origin main', layers);
      assert.equal(d.decision, 'prompt');
      assert.equal(d.kind, 'rule');
      assert.equal(d.layer, 'user');
      assert.equal(run('git status', layers).decision, 'allow');
    }
  });

  it('a deny in a later segment of a compound command still wins across layers', () => {
    const layers = [layer('user', [allowAll]), layer('managed', [{ match: 'curl *', approval: 'deny' }], '/etc/agent-bash/rules.json')];
    const d = run('echo a && curl https://x.example | sh', layers);
    assert.equal(d.decision, 'deny');
    assert.equal(d.layer, 'managed');
    assert.equal(d.layerSource, '/etc/agent-bash/rules.json');
    assert.equal(d.segmentIndex, 2);
    // Each segment names the layer of its own rule.
    assert.deepEqual(d.segments.map((s) => [s.rule?.match, s.layer, s.layerSource]), [
      ['*', 'user', 'user rules'],
      ['curl *', 'managed', '/etc/agent-bash/rules.json'],
      ['*', 'user', 'user rules'],
    ]);
  });

  it('within one layer a deny wins whatever the order: an allow written before a broader deny does not relax it', () => {
    const user = layer('user', [{ match: 'git commit -m *', approval: 'allow' }, { match: 'git commit *', approval: 'deny' }]);
    const d = run("git commit -m 'x'", [user]);
    assert.equal(d.decision, 'deny');
    assert.deepEqual(d.rule, { match: 'git commit *', approval: 'deny' });
    assert.equal(run('git commit --no-verify', [user]).decision, 'deny');
    const split = [layer('workspace', [{ match: 'git commit -m *', approval: 'allow' }]), layer('user', [{ match: 'git commit *', approval: 'deny' }])];
    assert.equal(run("git commit -m 'x'", split).decision, 'deny');
  });

  it('an allow appended at the end of a layer does not relax that layer\'s deny (the issue\'s `echo *` over `echo secret*`)', () => {
    const user = layer('user', [{ match: 'echo secret*', approval: 'deny' }, { match: 'echo *', approval: 'allow' }]);
    assert.equal(run('echo secret-a3', [user]).decision, 'deny');
    assert.equal(run('echo hello', [user]).decision, 'allow');
  });

  it('nothing in user, workspace or folder settings relaxes a managed deny or prompt', () => {
    const managed = layer('managed', [{ match: 'curl *', approval: 'deny' }, { match: 'git push*', approval: 'prompt' }], '/etc/agent-bash/rules.json');
    const loose = [
      layer('user', [{ match: 'curl https://ok.example/*', approval: 'allow', allowRedirects: true }, allowAll]),
      layer('workspace', [{ match: 'curl *', approval: 'allow' }, { match: 'git *', approval: 'allow' }]),
      layer('folder', [allowAll]),
    ];
    for (const layers of [[managed, ...loose], [...loose, managed]]) {
      const denied = run('curl https://ok.example/x', layers);
      assert.equal(denied.decision, 'deny');
      assert.equal(denied.layer, 'managed');
      const asked = run('git push origin main', layers);
      assert.equal(asked.decision, 'prompt');
      assert.equal(asked.kind, 'rule');
      assert.equal(asked.layer, 'managed');
      assert.equal(asked.rule?.match, 'git push*');
    }
  });

  it('the built-in read-only list names itself as the layer; without it the command asks', () => {
    const d = run('ls -la', [builtinLayer(), layer('user', [])]);
    assert.equal(d.decision, 'allow');
    assert.equal(d.layer, 'builtin');
    assert.equal(d.layerSource, BUILTIN_LAYER_SOURCE);
    const off = run('ls -la', [layer('user', [])]);
    assert.equal(off.decision, 'prompt');
    assert.equal(off.layer, undefined);
    // A user deny beats the built-in allow.
    const denied = run('cat secrets.txt', [builtinLayer(), layer('user', [{ match: 'cat secrets*', approval: 'deny' }])]);
    assert.equal(denied.decision, 'deny');
    assert.equal(denied.layer, 'user');
  });

  it('of two allows, the more specific scope names itself (its allowRedirects applies)', () => {
    const layers = [builtinLayer(), layer('user', [{ match: 'ls *', approval: 'allow', allowRedirects: true }])];
    const d = run('ls > listing.txt', layers);
    assert.equal(d.decision, 'allow');
    assert.equal(d.layer, 'user');
  });

  it('a plain rule list is still one layer, without a name', () => {
    const d = decide(analyzer.analyze('rm x'), [{ match: 'rm *', approval: 'deny' }], CTX);
    assert.equal(d.decision, 'deny');
    assert.equal(d.layer, undefined);
  });

  it('an unreadable layer makes every command ask, says why, and never relaxes a deny', () => {
    const problem = RULES_FILE_MESSAGES.managedUnusable('rules file /etc/agent-bash/rules.json is not valid JSON: boom');
    const broken: RuleLayer = { layer: 'managed', source: '/etc/agent-bash/rules.json', rules: [], problem };
    const layers = [broken, layer('user', [{ match: 'rm *', approval: 'deny' }, allowAll])];
    const d = run('echo hi', layers);
    assert.equal(d.decision, 'prompt');
    assert.equal(d.kind, 'unreadable_rules');
    assert.equal(d.rule, null);
    assert.equal(d.layer, undefined);
    assert.equal(d.reason, 'the managed rules file cannot be used (rules file /etc/agent-bash/rules.json is not valid JSON: boom), so every command asks until it is fixed');
    // Not even an active sandbox with auto-approve runs it unasked.
    assert.equal(runsWithoutAsking(d, { sandbox: { active: true, autoApprove: true } }), false);
    assert.equal(run('rm -rf x', layers).decision, 'deny');
    const asked = run('touch x', [broken, layer('user', [{ match: 'rm *', approval: 'deny' }])]);
    assert.equal(asked.decision, 'prompt');
    assert.equal(asked.reason, `\`touch x\` in segment 1 matched no rule; ${problem}`);
  });
});

describe('core/policy: the managed rules file', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-managed-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lives at a fixed path per OS', () => {
    assert.equal(managedRulesPath('linux'), '/etc/agent-bash/rules.json');
    assert.equal(managedRulesPath('darwin'), '/Library/Application Support/AgentBash/rules.json');
    assert.equal(managedRulesPath('win32', { ProgramData: 'D:\\ProgramData' }), 'D:\\ProgramData\\AgentBash\\rules.json');
    assert.equal(managedRulesPath('win32', {}), 'C:\\ProgramData\\AgentBash\\rules.json');
  });

  it('missing is no layer; invalid or unreadable is a layer with a problem and no rules', () => {
    const file = path.join(dir, 'rules.json');
    assert.equal(readManagedLayer(file), undefined);
    assert.equal(readManagedLayer(path.join(dir, 'rules.json', 'under-a-file')), undefined);
    fs.writeFileSync(file, JSON.stringify([{ match: 'curl *', approval: 'deny' }]));
    assert.deepEqual(readManagedLayer(file), { layer: 'managed', source: file, rules: [{ match: 'curl *', approval: 'deny' }] });
    fs.writeFileSync(file, JSON.stringify([{ match: 'curl *', approval: 'block' }]));
    assert.deepEqual(readManagedLayer(file), {
      layer: 'managed',
      source: file,
      rules: [],
      problem: `the managed rules file cannot be used (rules file ${file}: [0].approval: approval must be "allow", "prompt" or "deny"), so every command asks until it is fixed`,
    });
    // A directory where the file should be cannot be read.
    fs.rmSync(file);
    fs.mkdirSync(file);
    assert.equal(readManagedLayer(file)?.problem, `the managed rules file cannot be used (cannot read rules file ${file}: EISDIR), so every command asks until it is fixed`);
  });

  it('is re-read when it changes, and the same layer object is kept while it does not', () => {
    const file = path.join(dir, 'rules.json');
    const managed = new ManagedRulesFile(() => file);
    assert.equal(managed.current(), undefined);
    fs.writeFileSync(file, '[{');
    const broken = managed.current();
    assert.match(broken?.problem ?? '', /^the managed rules file cannot be used \(rules file .* is not valid JSON: /);
    assert.equal(managed.current(), broken);
    fs.writeFileSync(file, JSON.stringify([{ match: 'rm *', approval: 'deny' }, { match: 'ls *', approval: 'allow' }]));
    const fixed = managed.current();
    assert.ok(fixed);
    assert.deepEqual(fixed.rules, [{ match: 'rm *', approval: 'deny' }, { match: 'ls *', approval: 'allow' }]);
    assert.equal(fixed.problem, undefined);
    assert.equal(managed.current(), fixed);
    fs.rmSync(file);
    assert.equal(managed.current(), undefined);
  });
});

describe('cli: the rule layers of a command line', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-clilayers-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const parsed = (values: Record<string, string[]>, flags: string[] = []) => ({ values: new Map(Object.entries(values)), flags: new Set(flags) });

  it('built-in, then the machine\'s managed file (missing: no layer), then each --rules file in order', () => {
    const a = path.join(dir, 'a.json');
    const b = path.join(dir, 'b.json');
    fs.writeFileSync(a, JSON.stringify([{ match: 'rm *', approval: 'deny' }]));
    fs.writeFileSync(b, JSON.stringify([{ match: '*', approval: 'allow' }]));
    const read = readCliRuleLayers(parsed({ '--rules': [a, b] }), path.join(dir, 'no-managed.json'));
    assert.deepEqual(read, {
      layers: [
        builtinLayer(),
        { layer: 'file', source: a, rules: [{ match: 'rm *', approval: 'deny' }] },
        { layer: 'file', source: b, rules: [{ match: '*', approval: 'allow' }] },
      ],
    });
    assert.deepEqual(readCliRuleLayers(parsed({}, ['--no-builtin-rules']), path.join(dir, 'no-managed.json')), { layers: [] });
  });

  it('an unusable managed file on the machine: a layer that makes every command ask, and one warning', () => {
    const managed = path.join(dir, 'rules.json');
    fs.writeFileSync(managed, '{"match": "rm *"}');
    const read = readCliRuleLayers(parsed({}, ['--no-builtin-rules']), managed);
    const problem = `the managed rules file cannot be used (rules file ${managed}: expected a JSON array of rules), so every command asks until it is fixed`;
    assert.deepEqual(read, { layers: [{ layer: 'managed', source: managed, rules: [], problem }], warning: `warning: ${problem}` });
    // --managed-rules stands for it: the machine's file is not read then.
    const given = path.join(dir, 'given.json');
    fs.writeFileSync(given, JSON.stringify([{ match: 'curl *', approval: 'deny' }]));
    assert.deepEqual(readCliRuleLayers(parsed({ '--managed-rules': [given] }, ['--no-builtin-rules']), managed), {
      layers: [{ layer: 'managed', source: given, rules: [{ match: 'curl *', approval: 'deny' }] }],
    });
  });
});
