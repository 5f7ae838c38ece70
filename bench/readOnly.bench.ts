// The read-only fence's cost (docs/SANDBOX.md): an auto-approved `true` in a persistent sandboxed
// shell (the editor's and the CLI's route: a fenced subshell) against the same shell's writable call,
// a one-shot fenced `true` against a one-shot sandboxed one, and `rg` over this repository fenced
// against unfenced. Medians of interleaved runs. Run: `node bench/run.mjs readOnly` after compiling.
import path from 'node:path';
import type { ExecRequest } from '../src/core/contracts';
import { LocalShellExecutor } from '../src/exec/localExecutor';
import { fenceSupport } from '../src/exec/sandbox/readOnly/readOnlySupport';
import { findOnPath, probeSandbox } from '../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS } from '../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../src/exec/sandbox/sandboxRuntime';
import { CountingSink, median, type BenchRow } from './benchKit';

const RUNS = 31;
const round = (n: number): number => Number(n.toFixed(2));

async function timed(executor: LocalShellExecutor, req: Omit<ExecRequest, 'sink' | 'timeoutMs'>): Promise<number> {
  const started = process.hrtime.bigint();
  await executor.run({ ...req, timeoutMs: 60_000, sink: new CountingSink() });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Medians of `a` and `b`, run interleaved (a busy moment costs both alike). */
async function pair(n: number, a: () => Promise<number>, b: () => Promise<number>): Promise<[number, number]> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i++) {
    ta.push(await a());
    tb.push(await b());
  }
  return [median(ta), median(tb)];
}

export async function run(): Promise<BenchRow[]> {
  if (!probeSandbox().sandbox) return [{ name: 'read-only fence', value: 'skipped: no sandbox here', unit: '', target: '' }];
  const support = fenceSupport('sandboxed');
  if (!support.enforced) return [{ name: 'read-only fence', value: `skipped: ${support.why ?? ''}`, unit: '', target: '' }];
  const repo = path.resolve('.');
  const runtime = new SandboxRuntime({ settings: () => ({ ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' }), workspaceRoots: () => [repo] });
  const executor = new LocalShellExecutor({ shellArgs: ['-c'], sandbox: runtime });
  const rows: BenchRow[] = [];
  try {
    const session = { cwd: repo, sessionKey: 'bench-ro' };
    // Warm: the shell, its builtin, the shared network.
    for (let i = 0; i < 3; i++) {
      await timed(executor, { ...session, command: 'true' });
      await timed(executor, { ...session, command: 'true', readOnly: { programs: ['true'] } });
    }
    const [writable, fenced] = await pair(
      RUNS,
      () => timed(executor, { ...session, command: 'true' }),
      () => timed(executor, { ...session, command: 'true', readOnly: { programs: ['true'] } }),
    );
    rows.push({ name: 'persistent sandboxed `true`, writable', value: round(writable), unit: 'ms', target: '' });
    rows.push({ name: 'persistent sandboxed `true`, read-only (fenced subshell)', value: round(fenced), unit: 'ms', target: '' });
    rows.push({ name: 'read-only over writable, persistent', value: round(fenced - writable), unit: 'ms', target: '≤ +5', met: fenced - writable <= 5 ? 'yes' : 'no' });
    const [oneShot, oneShotFenced] = await pair(
      11,
      () => timed(executor, { cwd: repo, command: 'true' }),
      () => timed(executor, { cwd: repo, command: 'true', readOnly: { programs: ['true'] } }),
    );
    rows.push({ name: 'one-shot sandboxed `true`, writable / read-only', value: `${round(oneShot)} / ${round(oneShotFenced)}`, unit: 'ms', target: '' });
    if (findOnPath('rg', process.env.PATH)) {
      const rg = 'rg -n --no-messages fence src test >/dev/null';
      const [plain, rgFenced] = await pair(
        11,
        () => timed(executor, { ...session, command: rg }),
        () => timed(executor, { ...session, command: rg, readOnly: { programs: ['rg'] } }),
      );
      rows.push({ name: '`rg` over this repository, writable / read-only', value: `${round(plain)} / ${round(rgFenced)}`, unit: 'ms', target: '' });
      rows.push({ name: '`rg` read-only ÷ writable', value: round(rgFenced / plain), unit: '×', target: '≤ 1.1', met: rgFenced / plain <= 1.1 ? 'yes' : 'no' });
    }
  } finally {
    await executor.dispose();
    runtime.dispose();
  }
  return rows;
}
