// Policy decision time per command with 200 rules, shell parse included (issue 3: median < 200 µs).
// Each timed call analyses a command text never seen before, so the analyzer's cache cannot hide
// the tree-sitter parse; a second row measures the cached path (same text again).
// Issue 10: the worst case over a pathological set (commands up to 64 KiB, 1,000 valid rules built
// to be slow: floating `*a*a*…`, `?`-heavy pieces, classes, braces at the limits) must stay < 50 ms.
import { median, type BenchRow } from './benchKit';
import type { PolicyRule } from '../src/core/contracts';
import { decide } from '../src/core/policy/policy';
import { RULE_LIMITS } from '../src/core/policy/rules/ruleGlob';
import { createShellAnalyzer, MAX_COMMAND_BYTES } from '../src/core/policy/analysis/shellAnalysis';
import { cpuClockSource, cpuNow } from '../src/core/util/cpuClock';

const TARGET_US = 200;
/** The cached path (issue 35): the analysis comes from the cache, only the rules and floors run. */
const CACHED_TARGET_US = 50;
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

/** 1,000 rules, each valid and each as slow as the limits allow. */
function pathologicalRules(): PolicyRule[] {
  const verbs: PolicyRule['approval'][] = ['deny', 'prompt', 'allow'];
  const rules: PolicyRule[] = [];
  const fill = (unit: string, tail: string): string => unit.repeat(Math.floor((RULE_LIMITS.maxLength - tail.length) / unit.length)) + tail;
  for (let i = 0; i < 1000; i++) {
    const shape = i % 6;
    const match =
      shape === 0 ? fill('*a', `*b${i}`)
        : shape === 1 ? `*${fill('?a', `b${i}`)}*`
          : shape === 2 ? `*${fill('[a-c]', `z${i}`)}*`
            : shape === 3 ? `*{a,aa}{a,aa}{a,aa}{a,aa}{a,aa}*x${i}*`
              : shape === 4 ? `*${'a'.repeat(RULE_LIMITS.maxLength - 12)}b${i}*`
                : `echo *a*a*a*a*a*a*a*a*a*b${i}`;
    rules.push({ match, approval: verbs[i % 3] });
  }
  return rules;
}

/** Commands up to 64 KiB that stress the parser, the walks and the matcher. */
function pathologicalCommands(): Array<[string, string]> {
  const fit = (head: string, unit: string, tail = ''): string => head + unit.repeat(Math.floor((MAX_COMMAND_BYTES - head.length - tail.length) / unit.length)) + tail;
  return [
    ['64 KiB of a', fit('echo ', 'a')],
    ['curl|curl|… in quotes', fit('echo "', 'curl|', '"')],
    ['10,000 words', fit('ls ', 'a ')],
    ['&& chain', fit('ls', ' && ls')],
    ['1,000 nested $( )', `${'echo $('.repeat(1000)}ls${')'.repeat(1000)}`],
    ['5,000 nested { }', `${'{ '.repeat(5000)}ls${'; }'.repeat(5000)}`],
    ['here-doc body', fit('cat <<EOF\n', 'a a a a $HOME\n', 'EOF')],
    ['many segments', fit('', 'echo a; ')],
    ['braces and globs', fit('cat ', '{a,b}*?[x] ')],
    ['backslashes', fit('echo ', '\\a')],
  ];
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

  // Worst case: every pathological command under the 1,000 pathological rules, fresh analyzers.
  const nasty = pathologicalRules();
  // A rule list is compiled once (memoised per list), like the settings' rules in the extension.
  decide(analyzer.analyze('warm up'), nasty, ctx);
  // Wall time, and the deciding thread's CPU time next to it (the clock the budgets use): on a shared
  // machine the wall clock also counts the time other processes held the cores. The process's CPU
  // time is shown too; it adds V8's collector and compiler threads, which run beside the decision.
  const worst: number[] = [];
  let worstName = '';
  let worstUs = 0;
  let worstCpuUs = 0;
  let worstProcessCpuUs = 0;
  for (const [name, text] of pathologicalCommands()) {
    for (let rep = 0; rep < 3; rep++) {
      const fresh1 = await createShellAnalyzer();
      const c0 = process.cpuUsage();
      const th0 = cpuNow();
      const t0 = process.hrtime.bigint();
      decide(fresh1.analyze(text), nasty, ctx);
      const us = Number(process.hrtime.bigint() - t0) / 1000;
      const threadUs = (cpuNow() - th0) * 1000;
      const cpu = process.cpuUsage(c0);
      worstCpuUs = Math.max(worstCpuUs, threadUs);
      worstProcessCpuUs = Math.max(worstProcessCpuUs, cpu.user + cpu.system);
      worst.push(us);
      if (us > worstUs) {
        worstUs = us;
        worstName = name;
      }
    }
  }

  const m = median(fresh);
  return [
    { name: `decide, 1,000 pathological rules, commands ≤ 64 KiB, worst (${worstName})`, value: round(worstUs / 1000), unit: 'ms', target: '< 50 ms', met: worstUs < 50_000 ? 'yes' : 'no' },
    { name: `decide, 1,000 pathological rules, commands ≤ 64 KiB, worst CPU time of the deciding thread (${cpuClockSource()} clock)`, value: round(worstCpuUs / 1000), unit: 'ms', target: '< 50 ms', met: worstCpuUs < 50_000 ? 'yes' : 'no' },
    { name: 'decide, 1,000 pathological rules, commands ≤ 64 KiB, worst CPU time of the process (all threads)', value: round(worstProcessCpuUs / 1000), unit: 'ms', target: '', met: '' },
    { name: 'decide, 1,000 pathological rules, commands ≤ 64 KiB, median', value: round(median(worst) / 1000), unit: 'ms', target: '', met: '' },
    { name: 'decide, 200 rules, fresh parse, median', value: round(m), unit: 'µs', target: `< ${TARGET_US} µs`, met: m < TARGET_US ? 'yes' : 'no' },
    { name: 'decide, 200 rules, fresh parse, p95', value: round(p95(fresh)), unit: 'µs', target: '', met: '' },
    { name: 'decide, 200 rules, cached analysis, median', value: round(median(cached)), unit: 'µs', target: `< ${CACHED_TARGET_US} µs`, met: median(cached) < CACHED_TARGET_US ? 'yes' : 'no' },
  ];
}
