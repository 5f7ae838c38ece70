import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RuleLayer, ShellAnalyzer } from '../../../../../src/core/contracts';
import { decide } from '../../../../../src/core/policy/policy';
import { PROGRAM_MODULES } from '../../../../../src/core/policy/programs';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from '../../../../../src/core/policy/rules/builtinRules';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';
import { TEST_EXPANDER } from '../testExpander';

// Issue 36: every program module carries lines that must run without asking and lines that must ask
// (ProgramExamples, beside what the policy knows of the program); this one table checks them all,
// under the built-in list plus an allow rule for the program (`name *`), so a rule cannot hide a spec
// that lets too much through.
describe('core/policy/programs: every module\'s examples', function () {
  this.timeout(60_000);
  let analyzer: ShellAnalyzer;
  let ws: string;
  before(async () => {
    analyzer = await createShellAnalyzer();
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-examples-')));
    for (const f of ['README.md', 'a.txt', 'b.txt', 'data.json', 'src/a.ts']) {
      fs.mkdirSync(path.dirname(path.join(ws, f)), { recursive: true });
      fs.writeFileSync(path.join(ws, f), '{"name": 1}\n');
    }
    execFileSync('git', ['init', '-q'], { cwd: ws });
    execFileSync('tar', ['-cf', 'archive.tar', 'src'], { cwd: ws });
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));

  const layers = (names: readonly string[]): RuleLayer[] => [
    { layer: 'builtin', source: BUILTIN_LAYER_SOURCE, rules: [...BUILTIN_RULES] },
    { layer: 'user', source: 'user settings', rules: names.flatMap((n) => [{ match: `${n} *`, approval: 'allow' as const }, { match: n, approval: 'allow' as const }]) },
  ];

  it('every module has examples: at least one line allowed and one that asks', () => {
    for (const m of PROGRAM_MODULES) {
      assert.ok((m.examples?.allow.length ?? 0) > 0 && (m.examples?.ask.length ?? 0) > 0, `${m.names.join('/')} has no examples`);
    }
  });

  for (const m of PROGRAM_MODULES) {
    it(`${m.names.join('/')}: allows its allow lines and asks for its ask lines`, () => {
      const rules = layers(m.names);
      for (const line of m.examples?.allow ?? []) {
        const d = decide(analyzer.analyze(line), rules, { cwd: ws, workspaceRoots: [ws], expander: TEST_EXPANDER });
        assert.equal(d.decision, 'allow', `${line}: ${d.reason}`);
      }
      for (const line of m.examples?.ask ?? []) {
        const d = decide(analyzer.analyze(line), rules, { cwd: ws, workspaceRoots: [ws], expander: TEST_EXPANDER });
        assert.equal(d.decision, 'prompt', `${line}: ${d.reason}`);
      }
    });
  }
});
