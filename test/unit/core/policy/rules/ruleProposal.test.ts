import * as assert from 'node:assert/strict';
import type { ShellAnalyzer } from '../../../../../src/core/contracts';
import { decide } from '../../../../../src/core/policy/policy';
import { proposeRules } from '../../../../../src/core/policy/rules/ruleProposal';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';

const CTX = { cwd: '/work/project', workspaceRoots: ['/work/project'] };

describe('core/ruleProposal', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const matches = (cmd: string): string[] => proposeRules(analyzer.analyze(cmd)).map((r) => r.match);

  it('proposes a prefix at the command’s own arity', () => {
    assert.deepEqual(matches('npm run test'), ['npm run test *']);
    assert.deepEqual(matches('npm run test -- --grep x'), ['npm run test *']);
    assert.deepEqual(matches('npm test'), ['npm test *']);
    assert.deepEqual(matches('git status'), ['git status *']);
    assert.deepEqual(matches('git log --oneline -5'), ['git log *']);
    assert.deepEqual(matches('ls -la'), ['ls *']);
    assert.deepEqual(matches('ls'), ['ls *']);
    assert.deepEqual(matches('docker compose up -d'), ['docker compose up *']);
    assert.deepEqual(matches('cargo build --release'), ['cargo build *']);
  });

  it('one rule per segment, deduplicated, wrappers stripped', () => {
    assert.deepEqual(matches('git status && ls -la && ls'), ['git status *', 'ls *']);
    assert.deepEqual(matches('timeout 60 npm test | tee log.txt'), ['npm test *', 'tee log.txt']);
    assert.deepEqual(matches('CI=1 npm test'), ['npm test *']);
  });

  it('never a bare rule for destructive verbs, wrappers, shells or interpreters: the exact command', () => {
    assert.deepEqual(matches('rm -rf build'), ['rm -rf build']);
    assert.deepEqual(matches('sudo apt install x'), ['sudo apt install x']);
    assert.deepEqual(matches("bash -c 'npm test'"), ['bash -c npm test', 'npm test *']);
    assert.deepEqual(matches('python3 script.py'), ['python3 script.py']);
    assert.deepEqual(matches('node build.js'), ['node build.js']);
    assert.deepEqual(matches("eval 'ls'"), ['eval ls', 'ls *']);
    assert.deepEqual(matches('git push origin main'), ['git push origin main']);
    // git's global options are read and stripped (`-C DIR` is checked as a path), so this is plain `git status`.
    assert.deepEqual(matches('git -C sub status'), ['git status *']);
    assert.deepEqual(matches('npm run'), ['npm run']);
    for (const cmd of ['rm x', 'sudo ls', 'bash x.sh', 'sh -c ls', 'python -m http.server', 'node x', 'eval ls', 'env ls']) {
      for (const m of matches(cmd)) assert.ok(!/^(rm|sudo|bash|sh|python|node|xargs|eval|env) \*$/.test(m), `${cmd} → ${m}`);
    }
  });

  it('escapes glob characters in exact rules', () => {
    assert.deepEqual(matches("rm -f '*.o'"), ['rm -f \\*.o']);
  });

  it('nothing for opaque segments or uncertain commands', () => {
    assert.deepEqual(matches('ls | xargs rm'), ['ls *']);
    assert.deepEqual(matches("python3 -c 'print(1)'"), []);
    assert.deepEqual(matches('$cmd x'), []);
    assert.deepEqual(matches('rm "$f"'), []);
  });

  it('the proposed rules allow the command they were made for', () => {
    for (const cmd of ['npm run test', 'git status && ls -la', 'sudo apt update', "bash -c 'npm test'", 'rm -rf build', "rm -f '*.o'"]) {
      const analysis = analyzer.analyze(cmd);
      assert.equal(decide(analysis, proposeRules(analysis), CTX).decision, 'allow', cmd);
    }
  });
});
