// Policy decision time per command with 200 rules, shell parse included (issue 3: median < 200 µs).
// Each timed call analyses a command text never seen before, so the analyzer's cache cannot hide
// the tree-sitter parse; a second row measures the cached path (same text again).
import { median, type BenchRow } from './benchKit';
import type { PolicyRule } from '../src/core/contracts';
import { decide } from '../src/core/policy/policy';
import { createShellAnalyzer } from '../src/core/policy/shellAnalysis';

const TARGET_US = 200;
const ITERATIONS = 5000;
const WARMUP = 500;

/** 200 rules, none of which matches the benchmark commands early: every rule is tried. */
function makeRules(): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const verbs: PolicyRule['approval'][] = ['allow', 'prompt', 'deny'];
  for (let i = 0; i < 194; i++) {
    const shape = i % 4;
    const match =
      shape === 0 ? `tool${i} run *` : shape === 1 ? `tool${i} --flag=* sub` : shape === 2 ? `tool${i} {a,b,c} *` : `*/bin/tool${i} *`;
    rules.push({ match, approval: verbs[i % 3] });
  }
  rules.push(
    { match: 'rm -rf /*', approval: 'deny' },
    { match: 'git push *', approval: 'prompt' },
    { match: 'git status*', approval: 'allow' },
    { match: 'ls *', approval: 'allow' },
    { match: 'grep *', approval: 'allow' },
    { match: 'npm run test *', approval: 'allow' },
  );
  return rules;
}

/** A realistic agent command, made unique by `i`. */
function command(i: number): string {
  switch (i % 4) {
    case 0:
      return `git status --short && ls -la src/dir${i} | grep -n "pattern ${i}" 2>/dev/null`;
    case 1:
      return `npm run test -- --grep 'case ${i}' > /dev/null 2>&1`;
    case 2:
      return `cd packages/p${i} && FOO=1 timeout 30 npm run test -- --reporter dot`;
    default:
      return `ls -la build/${i} && echo "done $(date +%s) ${i}"`;
  }
}

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length * 0.95)];
}

const round = (us: number): number => Math.round(us * 10) / 10;

export async function run(): Promise<BenchRow[]> {
  const analyzer = await createShellAnalyzer();
  const rules = makeRules();
  const ctx = { cwd: '/work/project', workspaceRoots: ['/work/project'] };

  for (let i = 0; i < WARMUP; i++) decide(analyzer.analyze(command(1_000_000 + i)), rules, ctx);

  const fresh: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const text = command(i);
    const t0 = process.hrtime.bigint();
    decide(analyzer.analyze(text), rules, ctx);
    fresh.push(Number(process.hrtime.bigint() - t0) / 1000);
  }

  const cached: number[] = [];
  const texts = [command(0), command(1), command(2), command(3)];
  for (const t of texts) analyzer.analyze(t);
  for (let i = 0; i < ITERATIONS; i++) {
    const text = texts[i % texts.length];
    const t0 = process.hrtime.bigint();
    decide(analyzer.analyze(text), rules, ctx);
    cached.push(Number(process.hrtime.bigint() - t0) / 1000);
  }

  const m = median(fresh);
  return [
    { name: 'decide, 200 rules, fresh parse, median', value: round(m), unit: 'µs', target: `< ${TARGET_US} µs`, met: m < TARGET_US ? 'yes' : 'no' },
    { name: 'decide, 200 rules, fresh parse, p95', value: round(p95(fresh)), unit: 'µs', target: '', met: '' },
    { name: 'decide, 200 rules, cached analysis, median', value: round(median(cached)), unit: 'µs', target: `< ${TARGET_US} µs`, met: median(cached) < TARGET_US ? 'yes' : 'no' },
  ];
}
