import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { PolicyRule, ShellAnalyzer } from '../../../../src/core/contracts';
import { decide } from '../../../../src/core/policy/policy';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';

const CTX = { cwd: '/work/project', workspaceRoots: ['/work/project'] };
const ALLOW_LS: PolicyRule[] = [
  { match: 'ls', approval: 'allow' },
  { match: 'ls *', approval: 'allow' },
];

// The wrapper table (`env`, `sudo`, `nice`, …) is a plain object: a command named after one of
// Object.prototype's members once found that member, was stripped as a wrapper, and `toString ls`
// matched `ls *` although bash runs `toString`.
describe('core/policy wrapper names', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });

  for (const name of ['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__']) {
    it(`\`${name} ls\` is the command ${name}, not ls`, () => {
      // bash is the judge: it looks up `name` itself (and does not find it).
      const bash = spawnSync('bash', ['--norc', '-c', `${name} ls`], {
        encoding: 'utf8',
        env: { PATH: '/usr/bin:/bin' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      assert.equal(bash.status, 127);
      assert.equal(bash.stderr, `bash: line 1: ${name}: command not found\n`);

      const analysis = analyzer.analyze(`${name} ls`);
      assert.deepEqual(analysis.segments.map((s) => s.argv), [[name, 'ls']]);
      const d = decide(analysis, ALLOW_LS, CTX);
      assert.equal(d.decision, 'prompt', d.reason);
      assert.equal(d.reason, `\`${name} ls\` in segment 1 matched no rule`);
    });
  }

  it('a real wrapper is still stripped: `env ls` matches `ls`', () => {
    const d = decide(analyzer.analyze('env ls'), ALLOW_LS, CTX);
    assert.equal(d.decision, 'allow', d.reason);
  });
});
