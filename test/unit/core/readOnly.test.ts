// Which auto-approved lines run read-only (readerClass.ts) and how a fence refusal reads back
// (readOnlyRefusals.ts): the real policy decides, the class follows its layers and programs.
import * as assert from 'node:assert/strict';
import type { PolicyRule, RuleLayer, ShellAnalyzer } from '../../../src/core/contracts';
import { decide } from '../../../src/core/policy/policy';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from '../../../src/core/policy/rules/builtinRules';
import { readOnlyLine } from '../../../src/core/policy/checks/readerClass';
import { createShellAnalyzer } from '../../../src/core/policy/analysis/shellAnalysis';
import { fenceRefusals, readOnlyRefusalNotice } from '../../../src/core/readOnlyRefusals';

describe('core: read-only lines and fence refusals', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });

  const layers = (user: PolicyRule[]): RuleLayer[] => [
    { layer: 'builtin', source: BUILTIN_LAYER_SOURCE, rules: [...BUILTIN_RULES] },
    { layer: 'user', source: 'user settings', rules: user },
  ];
  const plan = (command: string, user: PolicyRule[] = []) =>
    readOnlyLine(decide(analyzer.analyze(command), layers(user), { cwd: '/tmp/ws', workspaceRoots: ['/tmp/ws'] }));

  it('a line the built-in list allows is read-only, with each program once, sorted', () => {
    assert.deepEqual(plan('ls -la && git log -3 | head -5; ls'), { programs: ['git', 'head', 'ls'] });
    assert.deepEqual(plan('echo "$(cat keep)"'), { programs: ['cat', 'echo'] });
  });

  it('a user rule makes a reader read-only, but a runner or writer keeps the writable sandbox', () => {
    assert.deepEqual(plan("awk '{print $1}' f", [{ match: 'awk *', approval: 'allow' }]), { programs: ['awk'] });
    assert.equal(plan('make test', [{ match: 'make test*', approval: 'allow' }]), undefined);
    assert.equal(plan('touch x', [{ match: 'touch *', approval: 'allow' }]), undefined);
    assert.equal(plan('ls && make test', [{ match: 'make test*', approval: 'allow' }]), undefined);
    // `git status*` by a user rule is not the list's read form: git runs whatever its subcommand is.
    assert.equal(plan('git push', [{ match: 'git *', approval: 'allow' }]), undefined);
    // A rule that allows redirects grants writing through them.
    assert.equal(plan('echo ok > notes.txt', [{ match: 'echo *', approval: 'allow', allowRedirects: true }]), undefined);
  });

  it('a line that asks or is denied is no read-only line', () => {
    assert.equal(plan('touch x'), undefined);
    assert.equal(plan('ls', [{ match: 'ls *', approval: 'deny' }]), undefined);
  });

  it('reads back what the fence refused, as the programs printed it', () => {
    const output = [
      '/bin/bash: line 16: keep: Permission denied',
      "touch: cannot touch 'new': Permission denied",
      '/bin/bash: line 3: /usr/bin/curl: Permission denied',
      "Error: EACCES: permission denied, open '/ws/out.json'",
      "PermissionError: [Errno 13] Permission denied: 'x.txt'",
      'ordinary output',
    ].join('\n');
    assert.deepEqual(fenceRefusals(output), ['keep', 'new', '/usr/bin/curl', '/ws/out.json', 'x.txt']);
    assert.deepEqual(fenceRefusals('all fine\n'), []);
    assert.equal(
      readOnlyRefusalNotice(['keep']),
      '[read-only] This ran read-only because it was auto-approved as a read: the kernel refused `keep` (a write, a program the line does not name, a read outside the workspace, or a connection). Nothing outside its scratch folder was changed. If it needs to write, run another program or use the network, ask the person to approve it: send it again with `sandbox: "write"`.',
    );
  });
});
