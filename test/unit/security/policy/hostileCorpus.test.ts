import * as assert from 'node:assert/strict';
import type { PolicyRule, ShellAnalyzer } from '../../../../src/core/contracts';
import { CONSTRUCT } from '../../../../src/core/policy/analysis/allowableShapes';
import { decide } from '../../../../src/core/policy/policy';
import { REASON } from '../../../../src/core/policy/policyReasons';
import { parsePolicyRules } from '../../../../src/core/policy/rules/policyRulesSchema';
import { RAW_CONSTRUCT } from '../../../../src/core/policy/analysis/rawTextScan';
import { globMatches, RULE_LIMITS } from '../../../../src/core/policy/rules/ruleGlob';
import { VARIABLE_REASON } from '../../../../src/core/policy/analysis/sensitiveVariables';
import { createShellAnalyzer, MAX_COMMAND_BYTES, UNCERTAIN } from '../../../../src/core/policy/analysis/shellAnalysis';
import { corpus, CORPUS_RULES, HARMLESS } from './differential/hostileCorpus';
import { prepareWorkspaces } from './differential/sandboxJudge';
import { TEST_EXPANDER } from '../../core/policy/testExpander';

// Issue 10's corpus: hostile commands by class, judged under the issue's rule set in a workspace
// that holds a canary file and a symlink pointing out (`link -> /etc`). None may be allowed.
describe('core/policy hostile corpus (issue 10)', () => {
  let analyzer: ShellAnalyzer;
  let ws: string;
  let dispose: () => void;
  before(async () => {
    analyzer = await createShellAnalyzer();
    const w = prepareWorkspaces(1);
    ws = w.workspaces[0];
    dispose = w.dispose;
  });
  after(() => dispose());
  const run = (command: string, rules: PolicyRule[] = CORPUS_RULES) => decide(analyzer.analyze(command), rules, { cwd: ws, workspaceRoots: [ws], expander: TEST_EXPANDER });

  const all = corpus();
  it('has at least 300 commands in every class', () => {
    assert.ok(all.length >= 300, String(all.length));
    const classes = new Set(all.map((c) => c.cls));
    assert.equal(classes.size, 10);
  });

  for (const { cls, command } of all) {
    it(`${cls}: ${JSON.stringify(command)} is not allowed`, () => {
      const d = run(command);
      assert.notEqual(d.decision, 'allow', d.reason);
    });
  }

  it('denials behind git global options and wrappers are denials, not prompts', () => {
    for (const cmd of ['git --no-pager push', 'git -C . push', 'git -P push', 'git --git-dir=.git push', 'git --work-tree=. push', 'git --literal-pathspecs push', 'git --bare push']) {
      assert.equal(run(cmd).decision, 'deny', cmd);
      assert.equal(run(cmd).reason, REASON.segmentRule('git push', 1, 'deny', 'git push *'), cmd);
    }
    for (const w of ['pkexec', 'chrt -f 1', 'taskset 1', 'flock /tmp/l', 'strace', 'ltrace', 'fakeroot', 'toybox', 'busybox', 'ssh host', 'watch', 'setsid', 'stdbuf -o0', 'unbuffer', 'ionice -c3', 'firejail', 'chroot /', 'nsenter -t 1', 'unshare -r', 'systemd-run', 'xvfb-run', 'dbus-launch', 'nice', 'nohup', 'timeout 5']) {
      assert.equal(run(`${w} rm x`).decision, 'deny', w);
    }
    for (const sh of ['dash', 'zsh', 'ksh', 'mksh', 'busybox sh']) assert.equal(run(`${sh} -c 'rm x'`).decision, 'deny', sh);
  });

  it('names the construct that keeps a command from being allowed', () => {
    const reason = (c: string) => run(c, [{ match: '*', approval: 'allow', allowRedirects: true }]).reason;
    assert.equal(reason('ls \\ #;x'), REASON.construct(RAW_CONSTRUCT.backslashBlank));
    assert.equal(reason('ls \v x'), REASON.construct(RAW_CONSTRUCT.control(11)));
    assert.equal(reason('cat <<E"O"F\nx\nEOF'), REASON.construct(RAW_CONSTRUCT.heredocDelimiter('E"O"F')));
    assert.equal(reason('echo `echo \\`ls\\``'), REASON.construct(RAW_CONSTRUCT.escapedBacktick));
    assert.equal(reason('echo $[x]'), REASON.construct(RAW_CONSTRUCT.dollarBracket));
    assert.equal(reason('echo $((x))'), REASON.construct(RAW_CONSTRUCT.arithmeticNames));
    assert.equal(reason('echo ${!x}'), REASON.construct(RAW_CONSTRUCT.braceExpansionParam));
    assert.equal(reason('(( x ))'), REASON.construct(CONSTRUCT.arithmeticCommand));
    assert.equal(reason('a[x]=1'), REASON.construct(CONSTRUCT.subscript));
    assert.equal(reason('[[ x -eq 0 ]]'), REASON.construct(CONSTRUCT.testArithmetic('-eq')));
    assert.equal(reason('[[ -v x ]]'), REASON.construct(CONSTRUCT.testVariable('-v')));
    assert.equal(reason('f() { ls; }'), REASON.construct(CONSTRUCT.functionDefinition));
    assert.equal(reason('[[ x ]] > f'), REASON.construct(CONSTRUCT.compoundRedirect));
    assert.equal(reason('case x in x) ls;; esac'), REASON.construct(CONSTRUCT.node('`case` statement')));
    assert.equal(reason('declare -a x'), REASON.construct(CONSTRUCT.declaration('declare')));
    // The integer attribute is named first: later assignments to the name run subscripts.
    assert.equal(reason('declare -i x'), REASON.construct(VARIABLE_REASON.integerAttribute('`declare -i`')));
  });

  it('harmless everyday commands are still allowed by obvious rules', () => {
    const rules: PolicyRule[] = [...CORPUS_RULES, { match: 'sort *', approval: 'allow' }, { match: 'uniq *', approval: 'allow' }];
    for (const cmd of HARMLESS) {
      const d = run(cmd, rules);
      assert.equal(d.decision, 'allow', `${cmd}: ${d.reason}`);
    }
  });

  it('a read outside the workspace asks, whatever the program; inside it does not (`*` may match `link`)', () => {
    const rules: PolicyRule[] = [{ match: '*', approval: 'allow', allowRedirects: true }];
    for (const cmd of ['cat link/passwd', 'grep x link/hosts', 'head -1 /etc/hostname', 'wc -l ~/.bashrc', 'cat {README.md,/etc/shadow}', 'echo "$(<~/.ssh/id_rsa)"', 'sort < /etc/passwd', 'cat link/*', 'ls ../', 'cat *']) {
      assert.equal(run(cmd, rules).kind, 'external_directory', cmd);
    }
    for (const cmd of ['cat README.md', 'grep -r KEY .', 'wc -l sub/../canary', 'cat {README.md,canary}', 'cat sub/*', 'cat c*', "grep '/etc/passwd' README.md", 'git log --grep=/etc']) {
      assert.equal(run(cmd, rules).decision, 'allow', cmd);
    }
  });

  it('deep nesting, huge inputs and odd bytes fail closed with a reason, never a crash', () => {
    const rules: PolicyRule[] = [{ match: '*', approval: 'allow', allowRedirects: true }];
    const nestedSubst = `${'echo $('.repeat(1000)}ls${')'.repeat(1000)}`;
    const nestedGroups = `${'{ '.repeat(5000)}ls${'; }'.repeat(5000)}`;
    const andChain = Array.from({ length: 6000 }, () => 'ls').join(' && ');
    for (const cmd of [nestedSubst, nestedGroups, andChain]) {
      const d = run(cmd, rules);
      assert.equal(d.decision, 'prompt');
      // On a loaded machine the parse budget may run out first; both fail closed with a reason.
      assert.ok([REASON.uncertain(UNCERTAIN.treeTooDeep), REASON.uncertain(UNCERTAIN.deadline)].includes(d.reason), d.reason);
    }
    const long = `echo ${'a'.repeat(MAX_COMMAND_BYTES)}`;
    assert.equal(run(long, rules).reason, REASON.uncertain(UNCERTAIN.tooLong));
    assert.equal(run(`echo ${'é'.repeat(MAX_COMMAND_BYTES / 2 - 2)}`, rules).reason, REASON.uncertain(UNCERTAIN.tooLong));
    assert.equal(run("echo $'\\x' $'\\U110000' $'\\u'", rules).decision, 'allow');
  });

  it('rules are size-checked with clear messages; oversized globs cannot slow a decision down', () => {
    const big = parsePolicyRules([{ match: '*a'.repeat(50_000), approval: 'deny' }]);
    assert.deepEqual(big, { ok: false, message: `[0].match: match is longer than ${RULE_LIMITS.maxLength} characters` });
    const braces = parsePolicyRules([{ match: '{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}', approval: 'deny' }]);
    assert.deepEqual(braces, { ok: false, message: `[0].match: match expands to more than ${RULE_LIMITS.maxAlternatives} brace alternatives` });
    assert.equal(parsePolicyRules([{ match: '*a*a*a*a*a*a*a*a*a*b', approval: 'deny' }]).ok, true);
    assert.equal(globMatches('*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(40)), false);
    assert.equal(globMatches('*a*a*a*a*a*a*a*a*a*b', `${'a'.repeat(40)}b`), true);
    assert.equal(globMatches('echo *{x,y}?[0-9]', 'echo abcy!7'), true);
  });
});
