// Client-bridge bench: how fast a command's exit reaches the pipeline's result through the in-process
// VS Code terminal bridge (events pushed, no 250 ms poll), and what the terminal mirror costs on a
// large output compared with the local executor. The `vscode` module is a stub here (no renderer);
// the bridge's own work — pipes, tail buffer, decoding, coalesced terminal writes, artifact spill — is
// all real. Run: `node bench/run.mjs bridge` after compiling.
import { median, type BenchRow } from './benchKit';
import Module from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BashSettings, ToolResult } from '../src/core/contracts';


/** Just enough of the VS Code API for the bridge: an event emitter and a terminal that opens. */
function installVscodeStub(): void {
  class EventEmitter<T> {
    private listeners: Array<(v: T) => void> = [];
    event = (l: (v: T) => void) => {
      this.listeners.push(l);
      return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
    };
    fire(v: T): void {
      for (const l of this.listeners) l(v);
    }
    dispose(): void {
      this.listeners = [];
    }
  }
  const stub = {
    EventEmitter,
    ThemeIcon: class {},
    ThemeColor: class {},
    window: {
      createTerminal(opts: { pty: { open(): void; onDidWrite(l: (s: string) => void): void } }) {
        let drawn = 0;
        opts.pty.onDidWrite((s) => (drawn += s.length));
        setImmediate(() => opts.pty.open());
        return { show() {}, dispose() {}, get drawn() { return drawn; } };
      },
      onDidCloseTerminal: () => ({ dispose() {} }),
    },
  };
  const mod = Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown };
  const load = mod._load;
  mod._load = (req: string, ...rest: unknown[]) => (req === 'vscode' ? stub : load(req, ...rest));
}

const SETTINGS: BashSettings = {
  ruleLayers: [{ layer: 'file', source: 'bench rules', rules: [{ match: '*', approval: 'allow', allowRedirects: true }] }],
  interceptor: { enabled: false, patterns: [] },
  maxTimeout: 0,
  asyncEnabled: true,
  asyncMaxJobs: 10,
  autoBackground: { enabled: false, thresholdMs: 60000 },
  artifactHeadBytes: 20,
  outputMaxColumns: 768,
  shell: { args: ['-c'] },
  direnv: 'off',
};

export async function run(): Promise<BenchRow[]> {
  installVscodeStub();
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { VsCodeClientBridge } = require('../src/vscode/terminals/clientBridge') as typeof import('../src/vscode/terminals/clientBridge');
  const { BashPipeline } = require('../src/core/pipeline') as typeof import('../src/core/pipeline');
  const { createShellAnalyzer } = require('../src/core/policy/analysis/shellAnalysis') as typeof import('../src/core/policy/analysis/shellAnalysis');
  const { FileArtifactStore } = require('../src/core/output/artifacts') as typeof import('../src/core/output/artifacts');
  const { LocalShellExecutor } = require('../src/exec/localExecutor') as typeof import('../src/exec/localExecutor');
  /* eslint-enable @typescript-eslint/no-require-imports */

  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bench-bridge-'));
  const executor = new LocalShellExecutor({ shellArgs: ['-c'] });
  // As in the editor: the pipeline's lines run in the caller's persistent shell behind the terminal.
  const bridge = new VsCodeClientBridge({ shell: () => ({ path: '/bin/bash', args: ['-c'] }), baseEnv: () => process.env, defaultCwd: () => dir, sessions: executor });
  const analyzer = await createShellAnalyzer();
  const common = {
    settings: () => SETTINGS,
    analyzer,
    approver: { approve: async () => ({ kind: 'allow' as const }) },
    artifacts: new FileArtifactStore(path.join(dir, 'artifacts')),
    executor,
    sessionCwd: () => dir,
    workspaceRoots: () => [dir],
    sessionId: 'bench',
    bridgeShell: () => ({ command: '/bin/bash', args: ['-c'] }),
  };
  const viaBridge = new BashPipeline({ ...common, bridge });
  const viaLocal = new BashPipeline(common);
  const rows: BenchRow[] = [];
  try {
    // 1. Exit → result: the command's last act is printing the clock; the result's arrival is timed
    // against it (both in ms since the epoch on this machine).
    const latencies: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res: ToolResult = await viaBridge.run({ command: 'date +%s%3N' });
      const arrived = Date.now();
      const printed = Number(res.content[0].text.split('\n')[0]);
      latencies.push(arrived - printed);
    }
    const lat = median(latencies);
    rows.push({ name: 'process exit → result, in-process bridge (median of 30)', value: lat.toFixed(1), unit: 'ms', target: '≤ 20', met: lat <= 20 ? 'yes' : 'no' });

    // 2. 50 MB through the bridge (terminal mirror + tail + artifact) vs the local executor.
    const big = `yes '${'b'.repeat(99)}' | head -c ${50 * 1024 * 1024}`;
    const time = async (p: InstanceType<typeof BashPipeline>) => {
      const t = process.hrtime.bigint();
      const r = await p.run({ command: big, timeout: 600 });
      if (r.isError) throw new Error(r.content[0].text.slice(0, 200));
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    const bridgeMs = median([await time(viaBridge), await time(viaBridge), await time(viaBridge)]);
    const localMs = median([await time(viaLocal), await time(viaLocal), await time(viaLocal)]);
    rows.push({ name: '50 MB through the bridge', value: bridgeMs.toFixed(0), unit: 'ms', target: '' });
    rows.push({ name: '50 MB through the local executor', value: localMs.toFixed(0), unit: 'ms', target: '' });
    const ratio = bridgeMs / localMs;
    rows.push({ name: 'bridge / local time ratio (50 MB)', value: ratio.toFixed(2), unit: '×', target: '≤ 1.5', met: ratio <= 1.5 ? 'yes' : 'no' });
  } finally {
    await bridge.disposeAsync();
    await executor.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
