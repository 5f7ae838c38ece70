import * as assert from 'node:assert/strict';
import type { ShellAnalyzer } from '../../../../src/core/contracts';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { fencedProblemsOf, formatViolation, problemsOf, runDifferential } from './differential/differentialRun';
import { judgeBatch, prepareWorkspaces, sandboxAvailable, stageLauncher, type FencedJudge } from './differential/sandboxJudge';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fenceSpecs } from '../../../../src/exec/sandbox/readOnly/readOnlyFence';
import { fenceSupport } from '../../../../src/exec/sandbox/readOnly/readOnlySupport';
import { decide } from '../../../../src/core/policy/policy';
import { CORPUS_RULES } from './differential/hostileCorpus';

// Bash is the judge (issue 10 item 2): every command the policy allows under the corpus rules is
// run by real bash in a bubblewrap sandbox under strace. `npm run fuzz -- COUNT` runs longer.
const SEED = 20261201;
const COUNT = 3000;
const BUDGET_MS = 45_000;

describe('core/policy differential (bash in a sandbox is the judge)', function () {
  this.timeout(120_000);
  let analyzer: ShellAnalyzer;
  before(async function () {
    if (!sandboxAvailable()) {
      // setup.mjs installs bubblewrap and strace; without them the judge cannot run.
      this.skip();
    }
    analyzer = await createShellAnalyzer();
  });

  it('the kernel judge (the fuzz\'s second): behind the fence a hostile line does no harm; with a fence that lets the workspace be written, the judge sees it', async function () {
    const launcher = path.resolve('dist/agent-bash-launch');
    if (!fenceSupport('sandboxed').enforced || !existsSync(launcher)) this.skip();
    const { base, workspaces, dispose } = prepareWorkspaces(2);
    try {
      const staged = stageLauncher(base, launcher);
      const command = 'cat <<EOF\n  $(echo pwned > canary; echo x > new; cat keys/*)\nEOF';
      const fence = (writable: boolean): FencedJudge => ({
        prefix: (c, k, dir) => [staged, 'readonly', ...fenceSpecs({ scratch: writable ? c.workspace : path.join(dir, `s${k}`), workspaceRoots: [c.workspace], programs: ['cat'], shell: '/bin/bash', pathVar: process.env.PATH ?? '' }), '--'],
      });
      const [held] = await judgeBatch(base, [{ command, workspace: workspaces[0] }], 'fence-held', {}, fence(false));
      assert.deepEqual(fencedProblemsOf(held, workspaces[0], path.join(base, 'batch-fence-held', 's0')), []);
      const [open] = await judgeBatch(base, [{ command, workspace: workspaces[1] }], 'fence-open', {}, fence(true));
      const problems = fencedProblemsOf(open, workspaces[1], path.join(base, 'batch-fence-open', 's0'));
      assert.ok(problems.some((p) => p.includes('behind the read-only fence') && p.includes('/new')), JSON.stringify(problems));
      assert.ok(problems.some((p) => /canary/.test(p)), JSON.stringify(problems));
    } finally {
      dispose();
    }
  });

  it("the judge counts sort's own scratch file in $TMPDIR as its state, and nothing else sort writes outside", async () => {
    const { base, workspaces, dispose } = prepareWorkspaces(1);
    try {
      const ws = workspaces[0];
      // `sort -m … -` whose stdin is its stdout copies stdin to a mkstemp file in /tmp first (seen by the fuzzer, seed 1938176540).
      const [seen] = await judgeBatch(base, [{ command: 'printf "b\\na\\n" > in.txt; sort -m - in.txt < /dev/null > /dev/null; sort in.txt -o ../sorted', workspace: ws }], 'self');
      const scratch = seen.written.filter((w) => w.program === 'sort' && /^\/tmp\/sort[A-Za-z0-9]{6}$/.test(w.path));
      assert.equal(new Set(scratch.map((w) => w.path)).size, 1, JSON.stringify(seen.written));
      const d = decide(analyzer.analyze('sort in.txt'), [{ match: 'sort *', approval: 'allow' }], { cwd: ws, workspaceRoots: [ws] });
      assert.deepEqual(problemsOf(d, seen, ws), [`\`sort\` wrote \`${base}/sorted\`, outside the workspace`]);
    } finally {
      dispose();
    }
  });

  it('the judge sees what bash runs and writes (it can fail)', async () => {
    const { base, workspaces, dispose } = prepareWorkspaces(1);
    try {
      const ws = workspaces[0];
      const [seen] = await judgeBatch(base, [{ command: 'ls; id >/dev/null; echo x > ../out; echo y > inside', workspace: ws }], 'self');
      assert.deepEqual(seen.executed, ['ls', 'id']);
      assert.deepEqual(seen.written.map((w) => w.path).filter((p) => !p.startsWith('/dev/')), [`${base}/out`, `${ws}/inside`]);
      const d = decide(analyzer.analyze('ls'), CORPUS_RULES, { cwd: ws, workspaceRoots: [ws] });
      assert.deepEqual(problemsOf(d, seen, ws), [
        'executed `id`, which no allow rule covers',
        `\`bash\` wrote \`${base}/out\`, outside the workspace`,
      ]);
    } finally {
      dispose();
    }
  });

  it(`no allowed command runs an uncovered program or writes outside the workspace (seed ${SEED})`, async () => {
    const report = await runDifferential({ seed: SEED, count: COUNT, analyzer, budgetMs: BUDGET_MS });
    // Not vacuous: the generator yields allowed lines and a good share of them really ran.
    assert.ok(report.allowed >= 100, `only ${report.allowed} allowed`);
    assert.ok(report.ran >= Math.min(report.allowed, 40), `only ${report.ran} of ${report.allowed} ran`);
    assert.deepEqual(report.violations.map(formatViolation), []);
  });
});
