import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyRule, ShellAnalyzer } from '../../../src/core/contracts';
import * as human from '../../../src/core/humanMessages';
import { decide } from '../../../src/core/policy/policy';
import { withSandboxOff } from '../../../src/core/policy/policyGate';
import { createShellAnalyzer } from '../../../src/core/policy/analysis/shellAnalysis';

const WS = '/work/project';

describe('core/humanMessages', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const why = (command: string, rules: PolicyRule[] = []) =>
    human.whyAsked(command, decide(analyzer.analyze(command), rules, { cwd: WS, workspaceRoots: [WS] }));

  it('says who denied, with the command as code', () => {
    assert.equal(human.youDenied('rm -rf somefile'), 'You denied `rm -rf somefile`.');
    assert.equal(human.ruleDenied('rm -rf x', 'rm *'), 'Rule `rm *` denies `rm -rf x`.');
    assert.equal(human.ruleDenied('rm -rf x', undefined), 'Agent Bash refuses `rm -rf x`.');
  });

  it('explains why it asks without naming segments', () => {
    assert.equal(why('ls -la'), 'No rule matches `ls -la`, so Agent Bash asks.');
    assert.equal(why('git status && ls -la', [{ match: 'git status*', approval: 'allow' }]), 'No rule matches `ls -la`, so Agent Bash asks.');
    assert.equal(why('git push origin', [{ match: 'git push*', approval: 'prompt' }]), 'Rule `git push*` says to ask before `git push origin`.');
    assert.equal(why('touch /etc/x', [{ match: 'touch *', approval: 'allow' }]), '`touch /etc/x` reaches outside the workspace folders, so Agent Bash asks.');
    assert.equal(why('ls | xargs rm', [{ match: 'ls *', approval: 'allow' }, { match: 'xargs *', approval: 'allow' }]), '`xargs rm` runs code Agent Bash cannot see, so it asks.');
    assert.equal(why('echo hi > out.txt', [{ match: 'echo *', approval: 'allow' }]), '`echo hi > out.txt` writes to a file, which its allow rule does not cover, so Agent Bash asks.');
    assert.equal(why('$cmd x'), 'Agent Bash cannot tell for sure what `$cmd x` does, so it asks: command name `$cmd` is not static.');
    assert.equal(
      why('export CDPATH=/etc'),
      'Agent Bash cannot tell for sure what `export CDPATH=/etc` does, so it asks: `export` changes `CDPATH`, which decides what later commands run or read.',
    );
    assert.equal(why('rm -rf /'), '`rm -rf /` can do lasting damage, so Agent Bash always asks.');
    for (const c of ['ls -la', 'git status && ls -la', 'rm -rf /']) assert.ok(!why(c).includes('segment'), why(c));
  });

  it("says what it cannot be sure of, in the policy's words without its internals (a nested repository)", () => {
    const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'human-nested-')));
    try {
      fs.mkdirSync(path.join(ws, 'sub', '.git'), { recursive: true });
      fs.writeFileSync(path.join(ws, 'sub', '.git', 'HEAD'), 'ref: refs/heads/main\n');
      fs.mkdirSync(path.join(ws, 'sub', '.git', 'objects'));
      fs.mkdirSync(path.join(ws, 'sub', '.git', 'refs'));
      const d = decide(analyzer.analyze('git -C sub status'), [{ match: 'git status *', approval: 'allow' }], { cwd: ws, workspaceRoots: [ws] });
      assert.equal(d.decision, 'prompt');
      assert.equal(
        human.whyAsked('git -C sub status', d),
        `Agent Bash cannot tell for sure what \`git -C sub status\` does, so it asks: \`git status\` reads the repository at \`${ws}/sub/.git\`, nested inside the workspace: its config can name programs for git to run (diff.external, filter and textconv drivers).`,
      );
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });

  it('says when every command asks because the managed rules file cannot be used', () => {
    const problem = 'the managed rules file cannot be used (cannot read rules file /etc/agent-bash/rules.json: EACCES), so every command asks until it is fixed';
    const d = decide(analyzer.analyze('echo hi'), [{ layer: 'managed', source: '/etc/agent-bash/rules.json', rules: [], problem }, { layer: 'user', source: 'user settings', rules: [{ match: '*', approval: 'allow' }] }], { cwd: WS, workspaceRoots: [WS] });
    assert.equal(human.whyAsked('echo hi', d), 'The managed rules file cannot be used (cannot read rules file /etc/agent-bash/rules.json: EACCES), so every command asks until it is fixed.');
  });

  it('says when a call asks because it would run outside the OS sandbox', () => {
    const offAllowed = withSandboxOff(decide(analyzer.analyze('ls -la'), [{ match: 'ls *', approval: 'allow' }], { cwd: WS, workspaceRoots: [WS] }), true);
    assert.equal(
      human.whyAsked('ls -la', offAllowed),
      'Agent Bash asks because `ls -la` runs outside the OS sandbox this time (its caller asked for that).',
    );
    const offOutside = withSandboxOff(decide(analyzer.analyze('touch /etc/x'), [{ match: 'touch *', approval: 'allow' }], { cwd: WS, workspaceRoots: [WS] }), true);
    assert.equal(
      human.whyAsked('touch /etc/x', offOutside),
      '`touch /etc/x` reaches outside the workspace folders, so Agent Bash asks. Also, it runs outside the OS sandbox this time (its caller asked for that).',
    );
  });

  it('says how a run stopped', () => {
    assert.equal(human.KILLED_BY_SIGNAL, 'Killed by a signal');
    assert.equal(human.signalDetail('SIGTERM', 137), 'Signal: SIGTERM (the agent read exit 137)');
    assert.equal(human.STOPPED_BY_CTRL_C, 'Stopped by you (Ctrl+C)');
    assert.equal(human.runningFor(3200), 'Running for 3.2 s');
    assert.equal(human.exited(0), 'Finished (exit 0)');
    assert.equal(human.exited(2), 'Failed with exit 2');
    assert.equal(human.agentCommandsNowRunIn('/tmp'), 'Agent commands now run in /tmp.');
  });

  it('issue 34: notifications get quotes for code spans; result texts lose the agent\'s closing lines and segments', () => {
    assert.equal(human.plainNotice('Agent Bash: `ls -la`: Finished (exit 0) in 5 ms.'), 'Agent Bash: “ls -la”: Finished (exit 0) in 5 ms.');
    assert.equal(human.withoutSegments('`rm -rf x` in segment 1 matched deny rule `rm *`'), '`rm -rf x` matched deny rule `rm *`');
    assert.equal(human.withoutAgentTrailers('partial\n\nCommand aborted'), 'partial\n');
    assert.equal(human.withoutAgentTrailers('Command cancelled'), '');
    assert.equal(human.withoutAgentTrailers('out\n\nWall time: 2.10 seconds\n\nCommand timed out after 2 seconds'), 'out\n');
    assert.equal(human.withoutAgentTrailers('out\n\nWall time: 0.01 seconds\n\nCommand exited with code 1'), 'out\n');
    // The command's own lines are kept, also one that reads like a notice when more follows it.
    assert.equal(human.withoutAgentTrailers('Command aborted\nby the test'), 'Command aborted\nby the test');
    const big = `${'x'.repeat(5000)}\n\nCommand aborted`;
    assert.equal(human.withoutAgentTrailers(big), `${'x'.repeat(5000)}\n`);
  });

  it('formats durations and sizes for people', () => {
    assert.deepEqual([350, 1500, 20_000, 60_000, 125_000].map(human.duration), ['350 ms', '1.5 s', '20 s', '1 min', '2 min 5 s']);
    assert.deepEqual([812, 53_248, 3_250_000].map(human.byteSize), ['812 B', '52 KB', '3.1 MB']);
    assert.equal(human.outputCut(51_200, 3_250_000), 'Output cut: the agent saw 50 KB of 3.1 MB.');
    assert.equal(human.outputCut(100, 100), undefined);
    assert.equal(human.outputCut(undefined, 100), undefined);
  });

  it('says what the sandbox kept a command from doing, in one line', () => {
    assert.equal(human.refusalSentence({ paths: ['/tmp/x'], hosts: [] }), 'The sandbox kept this command from writing /tmp/x.');
    assert.equal(
      human.refusalSentence({ paths: ['/etc/a', '/etc/b'], hosts: ['example.org'] }),
      'The sandbox kept this command from writing /etc/a, /etc/b and from reaching example.org.',
    );
    assert.equal(human.STOPPED.timedOut(2), 'timed out after 2 s');
    assert.equal(human.STOPPED.cancelledBy('Copilot'), 'cancelled by Copilot');
    assert.equal(human.STOPPED.ctrlC, 'stopped with Ctrl+C');
  });

  it('names outputs and artifacts by their command, shortened, and time', () => {
    assert.equal(human.shortCommand('npm   test\n -- --grep x'), 'npm test -- --grep x');
    assert.equal(human.shortCommand('a'.repeat(41)), `${'a'.repeat(39)}…`);
    assert.equal(human.shortCommand('a'.repeat(40)), 'a'.repeat(40));
    assert.equal(human.artifactLabel('12', 'npm test', 1.2 * 1024 * 1024), 'artifact://12 (output of npm test, 1.2 MB)');
    assert.equal(human.artifactLabel('3', 'ls'), 'artifact://3 (output of ls)');
    assert.equal(human.artifactLabel('4'), 'artifact://4 (output)');
    const at = new Date(2026, 11, 2, 14, 5, 31).getTime();
    assert.equal(human.outputTitle('npm test', at), 'npm test · 14:05:31');
    assert.equal(human.outputTitle('cat /etc/hosts', at), 'cat ∕etc∕hosts · 14:05:31');
    assert.equal(human.outputTitle(`echo ${'x'.repeat(60)}`, at), `echo ${'x'.repeat(34)}… · 14:05:31`);
  });
});
