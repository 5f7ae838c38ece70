// OS sandbox bench: what sandboxing costs per command and on a large output, and the containment
// stress runs (50 per escape shape, plus 50 SIGKILLs of the host process) with their survivor counts.
// Run: `node bench/run.mjs sandbox` after compiling.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalShellExecutor } from '../src/exec/localExecutor';
import { probeSandbox } from '../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxMode } from '../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../src/exec/sandbox/sandboxRuntime';
import { CountingSink, median, type BenchRow } from './benchKit';


const MB50 = 50 * 1024 * 1024;
const ESCAPES = [
  'setsid sleep @M@ & sleep 30',
  'setsid -f sleep @M@; sleep 30',
  `( trap '' TERM; ( trap '' TERM; exec sleep @M@ ) & ) ; sleep 30`,
  'setsid -f sh -c "exec sleep @M@"; sleep 30',
];
const STRESS_RUNS = 50;
const BATCH = 10;

let counter = 0;
const marker = (): string => `4000.${process.pid}${++counter}`;
const round = (n: number): number => Number(n.toFixed(2));
const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Live processes whose whole command line is `line`. */
function alive(line: string): number {
  let n = 0;
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8').replace(/\0$/, '').split('\0').join(' ') !== line) continue;
      if (readFileSync(`/proc/${e}/stat`, 'utf8').split(') ')[1]?.startsWith('Z')) continue;
      n++;
    } catch {
      // Gone while reading.
    }
  }
  return n;
}

function executorFor(mode: SandboxMode | 'none', ws: string): { executor: LocalShellExecutor; runtime?: SandboxRuntime } {
  if (mode === 'none') return { executor: new LocalShellExecutor({ persistent: false, shellArgs: ['-c'] }) };
  const runtime = new SandboxRuntime({ settings: () => ({ ...DEFAULT_SANDBOX_SETTINGS, enabled: mode }), workspaceRoots: () => [ws] });
  return { executor: new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, killGraceMs: 300 }), runtime };
}

async function timeRuns(executor: LocalShellExecutor, ws: string, command: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const sink = new CountingSink();
    const started = process.hrtime.bigint();
    await executor.run({ command, cwd: ws, timeoutMs: 60_000, sink });
    out.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return out;
}

/** One host process (plain Node with the executor) SIGKILLed while its command runs. */
async function killHostOnce(shape: string, ws: string): Promise<string> {
  const m = marker();
  const exec = path.resolve(__dirname, '../src/exec/localExecutor.js');
  const sbx = path.resolve(__dirname, '../src/exec/sandbox/sandboxRuntime.js');
  const code = `
    const { LocalShellExecutor } = require(${JSON.stringify(exec)});
    const { SandboxRuntime } = require(${JSON.stringify(sbx)});
    const rt = new SandboxRuntime({ settings: () => ({ enabled: 'off', autoApprove: false, allowWrite: [], denyRead: [], denyWrite: [], allowedDomains: [] }), workspaceRoots: () => [] });
    const ex = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: rt });
    ex.run({ command: ${JSON.stringify(shape.replace('@M@', m))}, cwd: ${JSON.stringify(ws)}, timeoutMs: 0, sink: { push() {}, async dump() { return {}; }, dispose() {} } });`;
  const host = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  const deadline = Date.now() + 30_000;
  while (alive(`sleep ${m}`) === 0 && Date.now() < deadline) await delay(20);
  host.kill('SIGKILL');
  await new Promise((r) => host.once('exit', r));
  return m;
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const support = probeSandbox();
  if (!support.sandbox) return [{ name: 'sandbox unavailable', value: support.problem ?? '', unit: '', target: '' }];
  const ws = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bench-sbx-'));
  const plain = executorFor('none', ws);
  const contained = executorFor('off', ws);
  const sandboxed = executorFor('on', ws);
  try {
    // The extension starts the shared network namespace at activation; so does the bench.
    const shared = (await sandboxed.runtime?.warmNetwork()) ?? false;
    rows.push({ name: 'sandboxed commands share one network namespace (nsenter)', value: shared ? 'yes' : 'no', unit: '', target: '' });
    // ---- per-command overhead: `true`, interleaved so load spikes hit every variant alike ----
    const t = { plain: [] as number[], contained: [] as number[], sandboxed: [] as number[] };
    for (let i = 0; i < 20; i++) {
      t.plain.push(...(await timeRuns(plain.executor, ws, 'true', 1)));
      t.contained.push(...(await timeRuns(contained.executor, ws, 'true', 1)));
      t.sandboxed.push(...(await timeRuns(sandboxed.executor, ws, 'true', 1)));
    }
    const base = median(t.plain);
    const off = median(t.contained);
    rows.push({ name: '`true` one-shot, no bwrap (median of 20)', value: round(base), unit: 'ms', target: '' });
    rows.push({ name: '`true` sandbox off (PID namespace only, as every command)', value: round(off), unit: 'ms', target: '' });
    rows.push({ name: '`true` sandboxed (fs + network + PID ns)', value: round(median(t.sandboxed)), unit: 'ms', target: '' });
    const over = median(t.sandboxed) - off;
    rows.push({ name: 'sandbox overhead per command (sandboxed − sandbox off)', value: round(over), unit: 'ms', target: '<= 15', met: over <= 15 ? 'yes' : 'no' });
    rows.push({ name: 'containment + sandbox over a bare spawn (sandboxed − no bwrap)', value: round(median(t.sandboxed) - base), unit: 'ms', target: '' });

    // ---- 50 MB of output ----
    const gen = `yes '${'a'.repeat(99)}' | head -c ${MB50}`;
    const big = { plain: [] as number[], contained: [] as number[], sandboxed: [] as number[] };
    for (let i = 0; i < 7; i++) {
      big.plain.push(...(await timeRuns(plain.executor, ws, gen, 1)));
      big.contained.push(...(await timeRuns(contained.executor, ws, gen, 1)));
      big.sandboxed.push(...(await timeRuns(sandboxed.executor, ws, gen, 1)));
    }
    const ratio = median(big.sandboxed) / median(big.contained);
    rows.push({ name: '50 MB output, no bwrap (median of 7)', value: round(median(big.plain)), unit: 'ms', target: '' });
    rows.push({ name: '50 MB output, sandbox off', value: round(median(big.contained)), unit: 'ms', target: '' });
    rows.push({ name: '50 MB output, sandboxed', value: round(median(big.sandboxed)), unit: 'ms', target: '' });
    rows.push({ name: '50 MB output sandboxed / sandbox off', value: round(ratio), unit: '×', target: '<= 1.2', met: ratio <= 1.2 ? 'yes' : 'no' });
    rows.push({ name: '50 MB output sandboxed / no bwrap', value: round(median(big.sandboxed) / median(big.plain)), unit: '×', target: '' });

    // ---- containment stress: timeouts of every escape shape, 50 runs each ----
    for (const [i, shape] of ESCAPES.entries()) {
      const markers: string[] = [];
      for (let b = 0; b < STRESS_RUNS / BATCH; b++) {
        const batch = Array.from({ length: BATCH }, marker);
        markers.push(...batch);
        await Promise.all(batch.map((m) => contained.executor.run({ command: shape.replace('@M@', m), cwd: ws, timeoutMs: 1000, sink: new CountingSink() })));
      }
      await delay(2000);
      const survivors = markers.filter((m) => alive(`sleep ${m}`) > 0).length;
      rows.push({ name: `timeout of escape shape ${i + 1}: survivors after 2 s (${STRESS_RUNS} runs)`, value: survivors, unit: 'procs', target: '0', met: survivors === 0 ? 'yes' : 'no' });
    }

    // ---- a persistent sandboxed shell (the editor's caller session) killed mid-command, 50 runs ----
    const persistent = new LocalShellExecutor({ shellArgs: ['-c'], sandbox: sandboxed.runtime ?? contained.runtime, killGraceMs: 300 });
    try {
      const left: string[] = [];
      for (let b = 0; b < STRESS_RUNS / BATCH; b++) {
        const batch = Array.from({ length: BATCH }, marker);
        left.push(...batch);
        await Promise.all(
          batch.map(async (m, j) => {
            const sessionKey = `killed-${b}-${j}`;
            await persistent.run({ command: 'export WARM=1', cwd: ws, timeoutMs: 0, sessionKey, sink: new CountingSink() });
            await persistent.run({ command: ESCAPES[(b * BATCH + j) % ESCAPES.length].replace('@M@', m), cwd: ws, timeoutMs: 1000, sessionKey, sink: new CountingSink() });
          }),
        );
      }
      await delay(2000);
      const survivorsP = left.filter((m) => alive(`sleep ${m}`) > 0).length;
      rows.push({ name: `persistent shell killed mid-command (timeout): survivors after 2 s (${STRESS_RUNS} runs)`, value: survivorsP, unit: 'procs', target: '0', met: survivorsP === 0 ? 'yes' : 'no' });
    } finally {
      await persistent.dispose();
    }

    // ---- SIGKILL of the host mid-run, 50 runs (the shapes in turn) ----
    const killed: string[] = [];
    for (let b = 0; b < STRESS_RUNS / BATCH; b++) {
      killed.push(...(await Promise.all(Array.from({ length: BATCH }, (_, j) => killHostOnce(ESCAPES[(b * BATCH + j) % ESCAPES.length], ws)))));
    }
    await delay(2000);
    const survivors = killed.filter((m) => alive(`sleep ${m}`) > 0).length;
    rows.push({ name: `SIGKILL of the host mid-run: survivors after 2 s (${STRESS_RUNS} runs)`, value: survivors, unit: 'procs', target: '0', met: survivors === 0 ? 'yes' : 'no' });
  } finally {
    await Promise.allSettled([plain.executor.dispose(), contained.executor.dispose(), sandboxed.executor.dispose()]);
    contained.runtime?.dispose();
    sandboxed.runtime?.dispose();
    rmSync(ws, { recursive: true, force: true });
  }
  return rows;
}
