// The differential run: generate command lines, let the policy decide each under the corpus rules and the
// built-in read-only list, and
// run every one it would `allow` under real bash in the sandbox. A case fails when bash executed a
// program no allow rule the policy used covers, or wrote outside the case's workspace.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PolicyDecision, ShellAnalyzer } from '../../../../../src/core/contracts';
import { decide } from '../../../../../src/core/policy/policy';
import { generate, prng } from './commandGenerator';
import { FUZZ_RULES, RUNS_ALSO } from './hostileCorpus';
import { GUARDED_PATHS, judgeBatch, prepareWorkspaces, SECRET_DIR, stageLauncher, type FencedJudge, type Observed } from './sandboxJudge';
import { fenceSpecs } from '../../../../../src/exec/sandbox/readOnly/readOnlyFence';
import { findOnPath } from '../../../../../src/exec/sandbox/sandboxProbe';
import { TEST_EXPANDER } from '../../../core/policy/testExpander';

export interface Violation {
  command: string;
  reason: string;
  problems: string[];
}

export interface DifferentialReport {
  seed: number;
  generated: number;
  /** Distinct command lines the policy allowed. */
  allowed: number;
  /** How many of those ran under bash before the time budget ran out. */
  ran: number;
  violations: Violation[];
  /** With `fenceLauncher`: what the same lines did behind the fence that they must not have. */
  fencedViolations?: Violation[];
}

// Writes by descriptor device: the judge runs each line as every route of Agent Bash does, with
// stdin /dev/null (a PTY run: its terminal) and stdout/stderr its own, so `2>/dev/stdin` writes
// nothing kept, like `>/dev/stdout`; a line that also puts a file on a descriptor asks (redirectTargets.ts).
const HARMLESS_WRITES = /^(?:\/dev\/(?:null|tty|stdin|stdout|stderr|fd\/\d+|pts\/\d+)|\/proc\/self\/fd\/\d+)$/;
/** Where an allowed program keeps its own state (the sandbox's HOME is /tmp/home). */
const PROGRAM_STATE: Readonly<Partial<Record<string, RegExp>>> = {
  npm: /^\/tmp\/home\/\.npm(?:\/|$)/,
  node: /^\/tmp\/home\/\.npm(?:\/|$)/,
  bash: /^\/tmp\/sh-thd/,
  // sort's own scratch files (mkstemp in $TMPDIR, removed when it ends): `sort -m … -` copies stdin to
  // one. `-T DIR`, which would put them elsewhere, asks (programs/sort.ts).
  sort: /^\/tmp\/sort[A-Za-z0-9]{6}$/,
};

/**
 * npm itself is replaced by a shell script that exits 0: what a package's test script does is the
 * user's rule, not the policy's reading of the line, and node under strace is slow on a shared machine.
 */
const STUBS: Readonly<Record<string, string>> = { '/usr/bin/npm': '#!/bin/sh\nexit 0\n' };

function inside(p: string, root: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The reads that reached the folder outside the workspace its `keys` link leads to (by real path). */
function secretReads(observed: Observed, workspace: string): Array<{ program: string; real: string }> {
  const secret = path.join(path.dirname(workspace), SECRET_DIR);
  const out: Array<{ program: string; real: string }> = [];
  for (const r of observed.read) {
    let real = r.path;
    try {
      real = fs.realpathSync(r.path);
    } catch {
      // gone or never there: judged as written
    }
    if (inside(real, secret)) out.push({ program: r.program, real });
  }
  return out;
}

/** What bash did that the allow decision does not cover. */
export function problemsOf(decision: PolicyDecision, observed: Observed, workspace: string): string[] {
  const covered = new Set<string>(['bash']);
  for (const s of decision.segments) {
    const head = s.rule?.match.trim().split(/\s+/)[0];
    if (!head) continue;
    covered.add(head);
    for (const also of RUNS_ALSO[head] ?? []) covered.add(also);
  }
  const problems: string[] = [];
  for (const p of observed.executed) if (!covered.has(p)) problems.push(`executed \`${p}\`, which no allow rule covers`);
  for (const p of observed.executedPaths) if (inside(p, workspace)) problems.push(`executed \`${path.relative(workspace, p)}\`, a program inside the workspace`);
  for (const w of observed.written) {
    if (inside(w.path, workspace)) {
      const rel = path.relative(workspace, w.path);
      if (GUARDED_PATHS.some((g) => rel === g || rel.startsWith(`${g}/`))) problems.push(`\`${w.program}\` wrote \`${rel}\`, a guarded workspace path`);
      continue;
    }
    if (HARMLESS_WRITES.test(w.path) || (Object.hasOwn(PROGRAM_STATE, w.program) && PROGRAM_STATE[w.program]?.test(w.path))) continue;
    problems.push(`\`${w.program}\` wrote \`${w.path}\`, outside the workspace`);
  }
  problems.push(...secretReads(observed, workspace).map((r) => `\`${r.program}\` read \`${r.real}\`, outside the workspace through a link`));
  problems.push(...observed.tampered);
  return [...new Set(problems)];
}

export interface RunOptions {
  seed: number;
  count: number;
  analyzer: ShellAnalyzer;
  /** Sandboxes run at once (the machine is shared: keep it small). */
  parallel?: number;
  batchSize?: number;
  /** No new batch starts after this long (the unit tier's bound); default: no limit. */
  budgetMs?: number;
  /**
   * The kernel as a second judge: every allowed line also runs behind the read-only fence (the
   * compiled launcher at this path), with only its segments' programs, and must do no harm there either.
   */
  fenceLauncher?: string;
  log?: (line: string) => void;
}

export async function runDifferential(opts: RunOptions): Promise<DifferentialReport> {
  const rnd = prng(opts.seed);
  const decider = prepareWorkspaces(1);
  const allowed: Array<{ command: string; decision: PolicyDecision }> = [];
  const seen = new Set<string>();
  try {
    const ws = decider.workspaces[0];
    for (let i = 0; i < opts.count; i++) {
      const command = generate(rnd);
      if (seen.has(command)) continue;
      seen.add(command);
      const decision = decide(opts.analyzer.analyze(command), FUZZ_RULES, { cwd: ws, workspaceRoots: [ws], expander: TEST_EXPANDER });
      if (decision.decision === 'allow') allowed.push({ command, decision });
    }
  } finally {
    decider.dispose();
  }
  opts.log?.(`differential: seed ${opts.seed}, ${opts.count} generated, ${allowed.length} allowed → run under bash`);

  const runs = prepareWorkspaces(allowed.length);
  const fencedRuns = opts.fenceLauncher !== undefined ? prepareWorkspaces(allowed.length) : undefined;
  const fencedViolations: Violation[] = [];
  const violations: Violation[] = [];
  const started = Date.now();
  let ran = 0;
  try {
    const batchSize = opts.batchSize ?? 20;
    const batches: number[][] = [];
    for (let i = 0; i < allowed.length; i += batchSize) batches.push(Array.from({ length: Math.min(batchSize, allowed.length - i) }, (_x, k) => i + k));
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        if (opts.budgetMs !== undefined && Date.now() - started > opts.budgetMs) return;
        const batch = batches[next++];
        const cases = batch.map((i) => ({ command: allowed[i].command, workspace: runs.workspaces[i] }));
        const observed = await judgeBatch(runs.base, cases, String(batch[0]), STUBS);
        ran += batch.length;
        batch.forEach((i, k) => {
          const problems = problemsOf(allowed[i].decision, observed[k], runs.workspaces[i]);
          if (problems.length > 0) violations.push({ command: allowed[i].command, reason: allowed[i].decision.reason, problems });
        });
        if (fencedRuns && opts.fenceLauncher !== undefined) {
          const fencedCases = batch.map((i) => ({ command: allowed[i].command, workspace: fencedRuns.workspaces[i] }));
          const fence = fencedJudge(stageLauncher(fencedRuns.base, opts.fenceLauncher), batch.map((i) => allowed[i].decision));
          const seen = await judgeBatch(fencedRuns.base, fencedCases, `f${batch[0]}`, STUBS, fence);
          batch.forEach((i, k) => {
            const problems = fencedProblemsOf(seen[k], fencedRuns.workspaces[i], path.join(fencedRuns.base, `batch-f${batch[0]}`, `s${k}`));
            if (problems.length > 0) fencedViolations.push({ command: allowed[i].command, reason: allowed[i].decision.reason, problems });
          });
        }
      }
    };
    await Promise.all(Array.from({ length: opts.parallel ?? 2 }, worker));
  } finally {
    runs.dispose();
    fencedRuns?.dispose();
  }
  return { seed: opts.seed, generated: opts.count, allowed: allowed.length, ran, violations, ...(fencedRuns ? { fencedViolations } : {}) };
}

/** The launcher's `readonly` stage for each case, with the programs its decision's segments name. */
function fencedJudge(launcher: string, decisions: readonly PolicyDecision[]): FencedJudge {
  const bash = findOnPath('bash', process.env.PATH) ?? '/bin/bash';
  return {
    prefix: (c, k, dir) => {
      const programs = [...new Set(decisions[k].segments.map((s) => s.segment.argv[0]))];
      const specs = fenceSpecs({ scratch: path.join(dir, `s${k}`), workspaceRoots: [c.workspace], programs, shell: bash, pathVar: process.env.PATH ?? '' });
      return [launcher, 'readonly', ...specs, '--'];
    },
  };
}

/**
 * Harm behind the fence: a write that succeeded outside the case's scratch folder (and the terminal
 * and null devices), a guarded file changed, a secret read, a workspace program run.
 */
export function fencedProblemsOf(observed: Observed, workspace: string, scratch: string): string[] {
  const problems: string[] = [];
  for (const p of observed.executedPaths) if (inside(p, workspace)) problems.push(`executed \`${path.relative(workspace, p)}\`, a program inside the workspace`);
  for (const w of observed.written) {
    if (HARMLESS_WRITES.test(w.path) || inside(w.path, scratch)) continue;
    problems.push(`\`${w.program}\` wrote \`${w.path}\` behind the read-only fence`);
  }
  problems.push(...secretReads(observed, workspace).map((r) => `\`${r.program}\` read \`${r.real}\` behind the read-only fence`));
  problems.push(...observed.tampered);
  return [...new Set(problems)];
}

/** A failing case, printed so it can be replayed: the command, the reason it was allowed, what ran. */
export function formatViolation(v: Violation): string {
  return `${JSON.stringify(v.command)}\n    allowed because: ${v.reason}\n    ${v.problems.join('\n    ')}`;
}
