// A slow login profile is paid once (issue 35): a synthetic profile that sleeps 3 s, resolved once per
// "window" (one LoginEnvironment, as the editor and the CLI make one), then the window's first
// command, a shell replaced after a timeout, and the CLI's `run -- true` (one resolve per process).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OutputSinkLike, OutputSummary } from '../src/core/contracts';
import { LocalShellExecutor } from '../src/exec/localExecutor';
import { LoginEnvironment } from '../src/exec/loginEnvironment';
import { DEFAULT_SANDBOX_SETTINGS } from '../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../src/exec/sandbox/sandboxRuntime';
import { getShellConfig } from '../src/exec/shellConfig';
import { median, type BenchRow } from './benchKit';

const CLI = path.resolve(__dirname, '../../dist/cli.js');
const PROFILE_SLEEP_S = 3;

class TextSink implements OutputSinkLike {
  text = '';
  push(chunk: Uint8Array | string): void {
    this.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  }
  async dump(): Promise<OutputSummary> {
    return { output: this.text, truncated: false, totalLines: 0, totalBytes: this.text.length, outputLines: 0, outputBytes: 0 };
  }
  dispose(): void {}
}

function ms(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e6;
}

/** Wall milliseconds of one `node dist/cli.js run --yes -- true`, failing on a non-zero exit. */
function cliRun(env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [CLI, 'run', '--yes', '--cwd', cwd, '--', 'true'], { env, cwd, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(ms(started)) : reject(new Error(`cli run exited ${code}`))));
  });
}

const row = (name: string, value: number, target: number | undefined, unit = 'ms'): BenchRow => ({
  name,
  value: value.toFixed(unit === 's' ? 2 : 1),
  unit,
  target: target === undefined ? '' : `≤ ${target}`,
  ...(target === undefined ? {} : { met: value <= target ? 'yes' : 'no' }),
});

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const home = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bench-login-'));
  writeFileSync(path.join(home, '.bash_profile'), `export LOGIN_MARKER=bench\necho run >> "$HOME/count"\nsleep ${PROFILE_SLEEP_S}\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SHELL: '/bin/bash' };
  delete env.AGENT_BASH_NO_LOGIN;
  const count = (): number => readFileSync(path.join(home, 'count'), 'utf8').split('\n').filter(Boolean).length;
  const login = new LoginEnvironment({ env });
  const executor = new LocalShellExecutor({ baseEnv: env, loginEnv: login });
  try {
    // What every new shell cost before: a login shell runs the profile.
    let t = process.hrtime.bigint();
    await new Promise((resolve) => spawn('/bin/bash', ['-lc', 'true'], { env, stdio: 'ignore' }).once('exit', resolve));
    rows.push(row('slow profile: `bash -lc true` (each shell before)', ms(t), undefined));

    // The window's one resolve (the editor starts it at activation, the CLI at its start).
    t = process.hrtime.bigint();
    await login.start(getShellConfig({ env }), { keepNotice: true });
    rows.push(row('slow profile: the one resolve per window', ms(t), undefined));

    const call = async (command: string, timeoutMs = 20_000): Promise<{ ms: number; text: string; timedOut: boolean }> => {
      const sink = new TextSink();
      const started = process.hrtime.bigint();
      const r = await executor.run({ command, cwd: home, timeoutMs, sessionKey: 'bench', sink });
      return { ms: ms(started), text: sink.text, timedOut: r.timedOut };
    };
    const first = await call('echo "$LOGIN_MARKER"');
    if (first.text !== 'bench\n') throw new Error(`first command printed ${JSON.stringify(first.text)}`);
    rows.push(row('slow profile: first command of a window, after the resolve', first.ms, 300));

    // The same in the OS sandbox (the editor's default), its network started as at activation.
    const sandbox = new SandboxRuntime({ settings: () => ({ ...DEFAULT_SANDBOX_SETTINGS, enabled: 'auto' }), workspaceRoots: () => [home] });
    const sandboxed = new LocalShellExecutor({ baseEnv: env, loginEnv: login, sandbox });
    try {
      if (sandbox.levelFor() === 'sandboxed') {
        await sandbox.warmNetwork().catch(() => false);
        const sink = new TextSink();
        const started = process.hrtime.bigint();
        await sandboxed.run({ command: 'echo "$AGENT_BASH_SANDBOX"', cwd: home, timeoutMs: 20_000, sessionKey: 'bench-sandboxed', sink });
        if (sink.text !== '1\n') throw new Error(`sandboxed first command printed ${JSON.stringify(sink.text)}`);
        rows.push(row('slow profile: first command of a window in the OS sandbox, after the resolve', ms(started), 300));
      }
    } finally {
      await sandboxed.dispose();
      sandbox.dispose();
    }

    // A timeout replaces the session's shell; the next result comes from a shell started from the snapshot.
    // Asked at once (the replacement is still starting), and after a model's turn (1 s: it is up).
    const replaced: number[] = [];
    const afterTurn: number[] = [];
    for (let i = 0; i < 10; i++) {
      const slow = await call('sleep 30', 200);
      if (!slow.timedOut) throw new Error('the slow call did not time out');
      if (i % 2) await new Promise((resolve) => setTimeout(resolve, 1000));
      const next = await call('echo "$LOGIN_MARKER"');
      if (next.text !== 'bench\n') throw new Error(`after a timeout: ${JSON.stringify(next.text)}`);
      (i % 2 ? afterTurn : replaced).push(next.ms);
    }
    rows.push(row('slow profile: replaced shell (after a timeout) to its next result, asked at once (median of 5)', median(replaced), undefined));
    rows.push(row('slow profile: replaced shell (after a timeout) to its next result, asked after a 1 s turn (median of 5)', median(afterTurn), 50));
    rows.push({ name: 'slow profile: profile runs in the window (resolve, commands, 10 replaced shells)', value: count() - 1, unit: 'runs', target: '1', met: count() - 1 === 1 ? 'yes' : 'no' });

    // The CLI: each process resolves once (nothing is kept on disk, where a sandboxed command could
    // read or forge it), so `run -- true` pays the profile; its floor is a run with no login shell.
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bench-login-cwd-'));
    try {
      const cold = await cliRun(env, cwd);
      rows.push(row('slow profile: CLI `run -- true` (one resolve per process, none kept on disk)', cold / 1000, undefined, 's'));
      const bare: number[] = [];
      for (let i = 0; i < 5; i++) bare.push(await cliRun({ ...env, AGENT_BASH_NO_LOGIN: '1' }, cwd));
      rows.push(row('CLI `run -- true` without any login shell (median of 5, the floor)', median(bare) / 1000, undefined, 's'));
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  } finally {
    await executor.dispose();
    await login.dispose();
    rmSync(home, { recursive: true, force: true });
  }
  return rows;
}
