// The in-host bench's extension-host half (run by bench/inhost.mjs as the extensionTestsPath, like the
// integration suites): times command → result through our API and through what VS Code's own agent
// tool uses (`window.createTerminal` + shell integration `executeCommand`), and marks when 50 MB
// stream through an agent terminal so the driver can read the renderer's long tasks in that window.
// Writes its numbers to $AGENT_BASH_TEST_OUT/inhost.json.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { AgentBashApi } from '../../src/vscode/api';
import { median } from '../benchKit';

const EXTENSION_ID = 'agent-bash.agent-bash';
const RUNS_TRUE = 31;
/** Quiet time before a route is timed, so both are measured in the workbench's steady state. */
const SETTLE_MS = 5000;
const RUNS_10MB = 3;
const TEN_MB = `head -c ${10 * 1024 * 1024} /dev/zero | tr '\\0' a`;
const FIFTY_MB = `yes '${'b'.repeat(99)}' | head -c ${50 * 1024 * 1024}`;
const SHELL_INTEGRATION_WAIT_MS = 15000;
const IDLE_MS = 5000;

export interface InHostReport {
  api: { trueMs: number; tenMbMs: number };
  shellIntegration: { available: true; trueMs: number; tenMbMs: number; tenMbBytes: number } | { available: false; reason: string };
  /** Epoch ms around the 50 MB run, for the driver's long-task window. */
  stream: { startedAt: number; endedAt: number; ms: number };
  /** An idle window just before it, as long as the stream or 5 s: the renderer's own long tasks on this machine. */
  idle: { startedAt: number; endedAt: number };
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function medianOf(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) ms.push(await time(fn));
  return median(ms);
}

/** A bash terminal with shell integration, or why there is none. */
async function shellIntegratedTerminal(): Promise<{ terminal: vscode.Terminal; si: vscode.TerminalShellIntegration } | { reason: string }> {
  const terminal = vscode.window.createTerminal({ name: 'bench: shell integration', shellPath: '/bin/bash' });
  terminal.show(true);
  const si = await new Promise<vscode.TerminalShellIntegration | undefined>((resolve) => {
    const timer = setTimeout(() => {
      sub.dispose();
      resolve(terminal.shellIntegration);
    }, SHELL_INTEGRATION_WAIT_MS);
    const sub = vscode.window.onDidChangeTerminalShellIntegration((e) => {
      if (e.terminal !== terminal) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(e.shellIntegration);
    });
    if (terminal.shellIntegration) {
      clearTimeout(timer);
      sub.dispose();
      resolve(terminal.shellIntegration);
    }
  });
  if (!si) {
    terminal.dispose();
    return { reason: `no shell integration in code-server's terminal within ${SHELL_INTEGRATION_WAIT_MS / 1000} s` };
  }
  return { terminal, si };
}

/** What VS Code's agent tool does: executeCommand, read the stream to its end, wait for the end event. */
async function runWithShellIntegration(si: vscode.TerminalShellIntegration, command: string): Promise<number> {
  const execution = si.executeCommand(command);
  const ended = new Promise<void>((resolve) => {
    const sub = vscode.window.onDidEndTerminalShellExecution((e) => {
      if (e.execution !== execution) return;
      sub.dispose();
      resolve();
    });
  });
  let bytes = 0;
  for await (const data of execution.read()) bytes += Buffer.byteLength(data);
  await ended;
  return bytes;
}

export async function run(): Promise<void> {
  const outDir = process.env.AGENT_BASH_TEST_OUT;
  if (!outDir) throw new Error('AGENT_BASH_TEST_OUT is not set');
  const ext = vscode.extensions.getExtension<AgentBashApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded`);
  const api = await ext.activate();
  await vscode.workspace
    .getConfiguration('agentBash')
    .update('patterns', [{ match: '*', approval: 'allow', allowRedirects: true }], vscode.ConfigurationTarget.Workspace);
  const bench = { callerName: 'Bench' };
  const ok = async (command: string): Promise<void> => {
    const r = await api.runBash({ command, timeout: 600 }, bench);
    if (r.isError) throw new Error(`${command}: ${r.content.map((c) => c.text).join('\n').slice(0, 300)}`);
  };

  await ok('true'); // warm-up: shell, analyzer, terminal
  // Steady state, as for the other route below: the workbench has just started (extensions
  // activating, the git scan, first paints), and either route measured then pays for that.
  await settle();
  const apiTrue = await medianOf(RUNS_TRUE, () => ok('true'));
  const apiTen = await medianOf(RUNS_10MB, () => ok(TEN_MB));

  let shellIntegration: InHostReport['shellIntegration'];
  const si = await shellIntegratedTerminal();
  if ('reason' in si) {
    shellIntegration = { available: false, reason: si.reason };
  } else {
    await runWithShellIntegration(si.si, 'true');
    await settle();
    const siTrue = await medianOf(RUNS_TRUE, () => runWithShellIntegration(si.si, 'true'));
    let tenMbBytes = 0;
    const siTen = await medianOf(RUNS_10MB, async () => (tenMbBytes = await runWithShellIntegration(si.si, TEN_MB)));
    si.terminal.dispose();
    shellIntegration = { available: true, trueMs: siTrue, tenMbMs: siTen, tenMbBytes };
  }

  const idleStart = Date.now();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idle = { startedAt: idleStart, endedAt: Date.now() };
  // The agent terminal on screen while 50 MB go through it: the renderer draws what the view lets by.
  const startedAt = Date.now();
  const streamMs = await time(() => ok(FIFTY_MB));
  const endedAt = Date.now();

  const report: InHostReport = {
    api: { trueMs: apiTrue, tenMbMs: apiTen },
    shellIntegration,
    stream: { startedAt, endedAt, ms: streamMs },
    idle,
  };
  writeFileSync(path.join(outDir, 'inhost.json'), JSON.stringify(report));
}
