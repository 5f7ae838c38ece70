// Walks that follow symbolic links, and globs whose directories pass through one, judged by the
// programs themselves: in a workspace holding a link
// to a folder outside, every command the policy allows must not print the secret behind the link
// when bash really runs it, and the commands that would print it must ask, naming the link.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyRule, ShellAnalyzer } from '../../../../../src/core/contracts';
import { decide } from '../../../../../src/core/policy/policy';
import { REASON } from '../../../../../src/core/policy/policyReasons';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';
import { TEST_EXPANDER } from '../testExpander';

const SECRET = 'SECRET-TOKEN-7731';
const RULES: PolicyRule[] = ['grep *', 'rg *', 'ls *', 'find *', 'du *', 'cat *', 'tree *'].map((match) => ({ match, approval: 'allow' }));

/** Commands that walk the workspace; whether each follows links is for the program to show. */
const WALKS = [
  'grep -r SECRET .',
  'grep -rn SECRET',
  'grep -R SECRET .',
  'grep -R SECRET',
  'grep -nR SECRET .',
  'grep --dereference-recursive SECRET .',
  'grep -r --dereference-recursive SECRET',
  'ls -R',
  'ls -RL',
  'ls -L -R .',
  'ls --recursive --dereference',
  'find . -name "*.txt"',
  'find -L . -name "*.txt"',
  'find . -follow -name "*.txt"',
  'du -a .',
  'du -aL .',
  // Globs in any component reach through the link as surely as its name does.
  'cat src/*/secret.txt',
  'cat */keys/secret.txt',
  'cat s?c/k*/secret.txt',
  'cat src/[k]eys/*',
  'grep -r SECRET src/*/',
  'cat src/*.txt',
  'cat src/*/x',
  'cat src/a.txt/*',
  'cat **/secret.txt',
  // The pattern is the first operand: `src` is searched for in `.`, whose link leads out (fuzzer).
  'rg -L src',
  'rg -L SECRET src',
];

describe('core/policy: walks that follow symbolic links out of the workspace', function () {
  this.timeout(30_000);
  let analyzer: ShellAnalyzer;
  let root: string;
  let ws: string;
  let outside: string;

  before(async () => {
    analyzer = await createShellAnalyzer();
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'agent-bash-links-')));
    ws = path.join(root, 'ws');
    outside = path.join(root, 'outside');
    mkdirSync(path.join(ws, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(ws, 'src', 'a.txt'), 'nothing here\n');
    // ` src`: `rg -L src` below searches for the word `src` and must find it behind the link.
    writeFileSync(path.join(outside, 'secret.txt'), `${SECRET} src\n`);
    symlinkSync(outside, path.join(ws, 'src', 'keys'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const decideIn = (command: string, cwd = ws) => decide(analyzer.analyze(command), RULES, { cwd, workspaceRoots: [ws], expander: TEST_EXPANDER });
  /** What bash prints running the command in the workspace (stdout and stderr). */
  const runIn = (command: string): string => {
    // stdin at /dev/null, as the judge runs it: rg without a path reads a pipe but walks `.` otherwise.
    const r = spawnSync('bash', ['-c', command], { cwd: ws, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return r.stdout + r.stderr;
  };

  it('no command it allows reaches the secret when bash runs it; those that would, ask', () => {
    let reached = 0;
    for (const command of WALKS) {
      const output = runIn(command);
      const decision = decideIn(command);
      // The secret itself, or the name of the file behind the link in a listing (not in an error).
      const leaks = output.includes(SECRET) || output.split('\n').some((line) => line.endsWith('secret.txt') && !line.includes('No such file'));
      if (leaks) reached++;
      if (decision.decision === 'allow') assert.equal(leaks, false, `${command} was allowed and printed:\n${output}`);
      else assert.equal(leaks, true, `${command} asks though it stays inside: ${decision.reason}`);
    }
    // The table holds both kinds: 18 of its 27 commands reach the secret under bash, 9 do not.
    assert.equal(reached, 18);
  });

  it('names the link and where it leads', () => {
    const d = decideIn('grep -R SECRET .');
    assert.equal(d.decision, 'prompt');
    assert.equal(d.reason, REASON.linkOutside('grep -R SECRET .', 1, path.join(ws, 'src', 'keys'), outside));
  });

  it('a walk that follows links is allowed where no link leads outside', () => {
    const clean = path.join(root, 'clean');
    mkdirSync(path.join(clean, 'a'), { recursive: true });
    writeFileSync(path.join(clean, 'a', 'x.txt'), 'x\n');
    symlinkSync(path.join(clean, 'a'), path.join(clean, 'inside-link'));
    const d = decide(analyzer.analyze('grep -R x .'), RULES, { cwd: clean, workspaceRoots: [clean] });
    assert.equal(d.decision, 'allow', d.reason);
  });

  it('a link to a folder inside that holds a link outside is followed too', () => {
    const nested = path.join(root, 'nested');
    mkdirSync(path.join(nested, 'scan'), { recursive: true });
    mkdirSync(path.join(nested, 'other'));
    symlinkSync(outside, path.join(nested, 'other', 'out'));
    symlinkSync(path.join(nested, 'other'), path.join(nested, 'scan', 'to-other'));
    const d = decide(analyzer.analyze('grep -R x scan'), RULES, { cwd: nested, workspaceRoots: [nested] });
    assert.equal(d.decision, 'prompt');
    assert.equal(d.reason, REASON.linkOutside('grep -R x scan', 1, path.join(nested, 'other', 'out'), outside));
  });

  it('a folder too large to scan asks, and says so', () => {
    const big = path.join(root, 'big');
    mkdirSync(big);
    for (let i = 0; i < 21_000; i++) writeFileSync(path.join(big, `f${i}`), '');
    const d = decide(analyzer.analyze('grep -R x .'), RULES, { cwd: big, workspaceRoots: [big] });
    assert.equal(d.decision, 'prompt');
    assert.equal(d.reason, REASON.linksUnchecked('grep -R x .', 1, big));
    // The same walk without following links needs no scan.
    assert.equal(decide(analyzer.analyze('grep -r x .'), RULES, { cwd: big, workspaceRoots: [big] }).decision, 'allow');
  });
});
