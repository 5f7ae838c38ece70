import * as assert from 'node:assert/strict';
import type { PolicyRule, RuleLayer, ShellAnalyzer } from '../../../src/core/contracts';
import { decisionSentence, explainMarkdown, plainReason, sandboxLines, segmentLine, type ExplainSandbox } from '../../../src/core/explainText';
import { decide } from '../../../src/core/policy/policy';
import { withSandboxOff } from '../../../src/core/policy/policyGate';
import { REASON } from '../../../src/core/policy/policyReasons';
import { createShellAnalyzer } from '../../../src/core/policy/analysis/shellAnalysis';

const WS = '/work/project';

const SANDBOXED: ExplainSandbox = { mode: 'auto', level: 'sandboxed', autoApprove: false, allowWrite: [], denyRead: [], denyWrite: [], allowedDomains: [] };

describe('core/explainText', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const decision = (command: string, rules: RuleLayer[] | PolicyRule[] = []) => decide(analyzer.analyze(command), rules, { cwd: WS, workspaceRoots: [WS] });
  const user = (...rules: PolicyRule[]): RuleLayer => ({ layer: 'user', source: 'user settings', rules });
  const workspace = (...rules: PolicyRule[]): RuleLayer => ({ layer: 'workspace', source: 'workspace settings', rules });
  const sentence = (command: string, rules: RuleLayer[] | PolicyRule[] = []) => decisionSentence(command, decision(command, rules));

  it('says the decision as one sentence: ask, run, refuse', () => {
    assert.equal(sentence('ls -la'), 'Agent Bash would ask you, because no rule covers `ls -la`.');
    assert.equal(
      sentence('git status', [user({ match: 'git status*', approval: 'allow' })]),
      'Agent Bash would run it without asking, because the allow rule `git status*` in user settings covers `git status`.',
    );
    assert.equal(
      sentence('rm -rf build', [workspace({ match: 'rm -rf*', approval: 'deny' })]),
      'Agent Bash would refuse it, because the deny rule `rm -rf*` in workspace settings matches `rm -rf build`.',
    );
    assert.equal(
      sentence('git push origin', [user({ match: 'git push*', approval: 'prompt' })]),
      'Agent Bash would ask you, because the ask rule `git push*` in user settings matches `git push origin`.',
    );
    assert.equal(sentence('ls', [{ layer: 'builtin', source: 'built-in read-only list', rules: [{ match: 'ls', approval: 'allow' }] }]), 'Agent Bash would run it without asking, because the allow rule `ls` in the built-in list covers `ls`.');
  });

  it('names the part of a line that decided, never "segment N"', () => {
    const rules = [user({ match: 'git status*', approval: 'allow' })];
    assert.equal(sentence('git status && ls -la', rules), 'Agent Bash would ask you, because no rule covers `ls -la`.');
    assert.equal(
      sentence('git status && ls', [user({ match: 'git status*', approval: 'allow' }, { match: 'ls*', approval: 'allow' })]),
      'Agent Bash would run it without asking, because allow rules cover each of its 2 commands.',
    );
    assert.equal(sentence('touch /etc/x', [user({ match: 'touch *', approval: 'allow' })]), 'Agent Bash would ask you, because `touch /etc/x` touches `/etc/x` (/etc/x), outside the workspace.');
    assert.equal(
      sentence('ls | xargs rm', [user({ match: 'ls*', approval: 'allow' }, { match: 'xargs *', approval: 'allow' })]),
      'Agent Bash would ask you, because `xargs rm` runs code Agent Bash cannot see: `xargs` runs a command built at run time.',
    );
    assert.equal(
      sentence('echo hi > out.txt', [user({ match: 'echo *', approval: 'allow' })]),
      'Agent Bash would ask you, because `echo hi` writes to `out.txt`, which the allow rule `echo *` does not cover (it has no `allowRedirects`).',
    );
    for (const c of ['ls -la', 'git status && ls -la', 'rm -rf /', 'ls | xargs rm']) assert.ok(!sentence(c).includes('segment'), sentence(c));
  });

  it('turns the policy reasons into plain words', () => {
    assert.equal(plainReason(REASON.opaque('xargs rm', 2, 'it runs its arguments')), '`xargs rm` runs code Agent Bash cannot see: it runs its arguments');
    assert.equal(plainReason(REASON.opaque('xargs rm', 2, 'it runs its arguments'), 'it'), 'it runs code Agent Bash cannot see: it runs its arguments');
    assert.equal(plainReason(REASON.unresolved('cat $f', 1, '$f')), '`cat $f` uses a path Agent Bash cannot work out before it runs (`$f`)');
    assert.equal(plainReason(REASON.critical('rm -rf /', 'rm -rf /')), '`rm -rf /` matches a dangerous pattern (rm -rf /)');
    assert.equal(plainReason(REASON.redirect('echo `date`', 1, 'x', 'echo *'), 'it'), 'it writes to `x`, which the allow rule `echo *` does not cover (it has no `allowRedirects`)');
    assert.equal(plainReason(REASON.uncertain('no command found')), 'the command could not be analysed with certainty: no command found');
  });

  it('says when the sandbox would run it without asking, and when sandbox "off" asks', () => {
    const d = decision('ls -la');
    assert.equal(
      decisionSentence('ls -la', d, { level: 'sandboxed', autoApprove: true }),
      'Agent Bash would run it in the sandbox without asking you (`agentBash.sandbox.autoApprove` is on); outside the sandbox it would ask, because no rule covers `ls -la`.',
    );
    assert.equal(decisionSentence('ls -la', d, { level: 'contained', autoApprove: true }), 'Agent Bash would ask you, because no rule covers `ls -la`.');
    // A critical command asks even in the sandbox.
    assert.equal(decisionSentence('rm -rf /', decision('rm -rf /'), { level: 'sandboxed', autoApprove: true }), 'Agent Bash would ask you, because `rm -rf /` matches a dangerous pattern (recursive or forced rm of an absolute or home path).');
    const off = withSandboxOff(decision('git status', [user({ match: 'git status*', approval: 'allow' })]), true);
    assert.equal(decisionSentence('git status', off), 'Agent Bash would ask you, because `git status` would run outside the OS sandbox (its caller asked for that).');
  });

  it('gives each command of the line with what decided it and the layer', () => {
    const d = decision('git status && rm -rf build && ls -la && echo hi > out.txt', [
      user({ match: 'git status*', approval: 'allow' }, { match: 'echo *', approval: 'allow' }),
      workspace({ match: 'rm -rf*', approval: 'deny' }),
    ]);
    assert.deepEqual(d.segments.map(segmentLine), [
      '`git status`: runs without asking: the allow rule `git status*` in user settings covers it.',
      '`rm -rf build`: refused: the deny rule `rm -rf*` in workspace settings matches it.',
      '`ls -la`: asks: no rule covers it.',
      '`echo hi`: asks: it writes to `out.txt`, which the allow rule `echo *` does not cover (it has no `allowRedirects`) (the allow rule `echo *` in user settings covers it otherwise).',
    ]);
    assert.equal(decisionSentence('…', d), 'Agent Bash would refuse it, because the deny rule `rm -rf*` in workspace settings matches `rm -rf build`.');
  });

  it('says what the sandbox would confine, from the sandbox settings', () => {
    assert.deepEqual(sandboxLines(SANDBOXED), [
      'Writes: only the workspace folders, a temporary folder of its own and package caches of its own; the rest of the file system is read-only.',
      'Git: `.git` folders stay read-only (`agentBash.sandbox.git.allowWrite` is off).',
      'Hidden: your credentials (`~/.ssh`, cloud and registry tokens, …).',
      'Network: none (`agentBash.sandbox.network.allowedDomains` is empty).',
    ]);
    assert.deepEqual(
      sandboxLines({ ...SANDBOXED, allowWrite: ['/tmp/out'], denyWrite: ['./secrets'], denyRead: ['~/private'], allowedDomains: ['registry.npmjs.org'], gitAllowWrite: true }),
      [
        'Writes: only the workspace folders, a temporary folder of its own, package caches of its own and `/tmp/out` (`agentBash.sandbox.filesystem.allowWrite`); the rest of the file system is read-only.',
        'Never writable: `./secrets` (`agentBash.sandbox.filesystem.denyWrite`).',
        'Git: commits may write `.git` (`agentBash.sandbox.git.allowWrite`); its config and hooks stay read-only.',
        'Hidden: your credentials (`~/.ssh`, cloud and registry tokens, …) and `~/private` (`agentBash.sandbox.filesystem.denyRead`).',
        'Network: only `registry.npmjs.org` (`agentBash.sandbox.network.allowedDomains`).',
      ],
    );
    assert.deepEqual(sandboxLines({ ...SANDBOXED, mode: 'off', level: 'contained' }), [
      'The sandbox is off (`agentBash.sandbox.enabled` is `off`): it would run with your own rights, in a process namespace of its own so nothing it starts outlives it. Nothing confines what it writes or which hosts it reaches.',
    ]);
    assert.deepEqual(sandboxLines({ ...SANDBOXED, level: 'plain' }), [
      'The sandbox cannot start on this machine: it would run with your own rights. Nothing confines what it writes or which hosts it reaches.',
    ]);
    assert.deepEqual(sandboxLines({ ...SANDBOXED, mode: 'on', level: { error: 'bubblewrap is not installed.' } }), [
      'The sandbox is on (`agentBash.sandbox.enabled` is `on`) but cannot start here, so nothing would run: bubblewrap is not installed.',
    ]);
  });

  it('writes the whole document as Markdown', () => {
    const d = decision('git status && ls -la', [user({ match: 'git status*', approval: 'allow' })]);
    assert.equal(
      explainMarkdown('git status && ls -la', d, { cwd: WS, sandbox: { ...SANDBOXED, mode: 'off', level: 'plain' }, actions: ['**Add Allow Rule…** saves allow rules for it.'] }),
      [
        '# Agent Bash: `git status && ls -la`',
        '',
        'Agent Bash would ask you, because no rule covers `ls -la`.',
        '',
        'Judged as run in `/work/project`. Nothing was run.',
        '',
        '## The 2 commands in this line',
        '',
        '1. `git status`: runs without asking: the allow rule `git status*` in user settings covers it.',
        '2. `ls -la`: asks: no rule covers it.',
        '',
        '## What the sandbox would confine',
        '',
        '- The sandbox is off (`agentBash.sandbox.enabled` is `off`): it would run with your own rights. Nothing confines what it writes or which hosts it reaches.',
        '',
        '## What you can do',
        '',
        '- **Add Allow Rule…** saves allow rules for it.',
        '',
      ].join('\n'),
    );
  });

  it('with a trace, ends with every check in the order it ran, in words for the ones that asked', () => {
    const d = decide(analyzer.analyze('cat ../secret'), [user({ match: 'cat *', approval: 'allow' })], { cwd: WS, workspaceRoots: [WS], trace: true });
    const text = explainMarkdown('cat ../secret', d);
    const section = text.slice(text.indexOf('## Every check, in the order it ran'));
    assert.equal(
      section,
      [
        '## Every check, in the order it ran',
        '',
        '1. `cat ../secret`',
        '   - `rule` passed: allow rule `cat *`',
        '   - `critical_pattern` passed',
        '   - `opaque` passed',
        '   - `expansion` passed',
        '   - `expanded_words` passed',
        '   - `protected_write` passed',
        '   - `workspace_scope` asks: it touches `../secret` (/work/secret), outside the workspace',
        '   - `program_identity` passed',
        '   - `nested_repository` passed',
        '   - `package_config` passed',
        '   - `symlink_walk` not run: a path outside the workspace already asks',
        '   - `redirect` passed',
        '',
        'The whole line:',
        '',
        '- `line_rule` passed',
        '- `shell_construct` passed',
        '- `analysis` passed',
        '- `invisible_characters` passed',
        '',
      ].join('\n'),
    );
    // Without a trace the document has no such section.
    assert.equal(explainMarkdown('cat ../secret', decision('cat ../secret')).includes('## Every check'), false);
  });
});
