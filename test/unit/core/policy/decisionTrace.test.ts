import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CheckCode, PolicyDecision, RuleLayer, ShellAnalyzer } from '../../../../src/core/contracts';
import { decide } from '../../../../src/core/policy/policy';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from '../../../../src/core/policy/rules/builtinRules';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { EVERYDAY, WRITERS_AND_RUNNERS } from './programs/everydayCorpus';
import { corpus, HARMLESS } from '../../security/policy/differential/hostileCorpus';
import { TEST_EXPANDER } from './testExpander';

/** The segment checks in the order they run (policy.ts: the rule, the floors, then DIRECTORY_CHECKS per directory, then the redirect). */
const SEGMENT_ORDER: readonly CheckCode[] = [
  'rule', 'critical_pattern', 'opaque', 'expansion', 'expanded_words', 'protected_write', 'workspace_scope',
  'program_identity', 'nested_repository', 'package_config', 'symlink_walk', 'redirect',
];
const LINE_ORDER: readonly CheckCode[] = ['line_rule', 'shell_construct', 'analysis', 'invisible_characters'];

function withoutTrace(d: PolicyDecision): PolicyDecision {
  const copy: PolicyDecision = { ...d, segments: d.segments.map((s) => ({ ...s })) };
  delete copy.trace;
  for (const s of copy.segments) delete s.trace;
  return copy;
}

// `explain --trace` (issue 36): the trace names every check, and keeping it changes no decision.
describe('core/policy: the decision trace', function () {
  this.timeout(120_000);
  let analyzer: ShellAnalyzer;
  let ws: string;
  const builtin: RuleLayer[] = [{ layer: 'builtin', source: BUILTIN_LAYER_SOURCE, rules: [...BUILTIN_RULES] }];
  before(async () => {
    analyzer = await createShellAnalyzer();
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-trace-')));
    fs.writeFileSync(path.join(ws, 'README.md'), '# readme\n');
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));
  const judge = (command: string, trace: boolean): PolicyDecision =>
    decide(analyzer.analyze(command), builtin, { cwd: ws, workspaceRoots: [ws], expander: TEST_EXPANDER, ...(trace ? { trace: true } : {}) });
  const lines = (): string[] => [...EVERYDAY, ...WRITERS_AND_RUNNERS, ...HARMLESS, ...corpus().map((c) => c.command)];

  it('keeping the trace changes no decision, and without it there is none', () => {
    let n = 0;
    for (const line of lines()) {
      const plain = judge(line, false);
      assert.equal(plain.trace, undefined, line);
      for (const s of plain.segments) assert.equal(s.trace, undefined, line);
      assert.deepEqual(withoutTrace(judge(line, true)), plain, line);
      n++;
    }
    assert.ok(n > 300, `only ${n} lines`);
  });

  it('every segment runs the checks in the declared order, and every reason that decided is in its trace', () => {
    for (const line of lines()) {
      const d = judge(line, true);
      assert.deepEqual(d.trace?.map((t) => t.check), LINE_ORDER, line);
      for (const s of d.segments) {
        const trace = s.trace ?? [];
        // Each directory repeats the directory checks; the order, folded, is the declared one.
        const folded = trace.map((t) => t.check).filter((c, i, all) => all.indexOf(c) === i);
        assert.deepEqual(folded, SEGMENT_ORDER, line);
        if (s.kind !== 'rule' && s.kind !== 'default') {
          assert.ok(trace.some((t) => t.result === 'ask' && t.detail === s.reason), `${line}: ${s.reason ?? ''} is not in ${JSON.stringify(trace)}`);
        }
        const rule = trace.at(0);
        assert.equal(rule?.result, s.rule === null ? 'ask' : s.rule.approval === 'allow' ? 'pass' : s.rule.approval === 'deny' ? 'deny' : 'ask', line);
      }
      // A line check that asks carries the decision's reason when it decided.
      if (d.segmentIndex === undefined && d.decision !== 'allow') {
        assert.ok((d.trace ?? []).some((t) => t.result !== 'pass' && t.detail === d.reason), `${line}: ${d.reason}`);
      }
    }
  });

  it('a segment that may run in two directories says which each check judged', () => {
    fs.mkdirSync(path.join(ws, 'sub'), { recursive: true });
    const d = judge('test -d sub && cd sub; ls', true);
    const ls = d.segments.at(-1);
    const dirs = new Set((ls?.trace ?? []).filter((t) => t.check === 'workspace_scope').map((t) => t.cwd));
    assert.deepEqual([...dirs].sort(), [ws, path.join(ws, 'sub')].sort());
  });
});
