// Shared helpers for the suites that run inside the VS Code extension host.
import { readdirSync, readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { BashSettings, PolicyRule, RuleLayerName, ToolResult } from '../../src/core/contracts';
import type { AgentBashApi } from '../../src/extension';

export const EXTENSION_ID = 'agent-bash.agent-bash';

export async function activateApi(): Promise<AgentBashApi> {
  const ext = vscode.extensions.getExtension<AgentBashApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  return ext.activate();
}

/** The test hooks (present because the harness sets AGENT_BASH_TEST_MODE=1). */
export async function testing(): Promise<NonNullable<AgentBashApi['testing']>> {
  const api = await activateApi();
  if (!api.testing) throw new Error('api.testing missing: AGENT_BASH_TEST_MODE is not 1');
  return api.testing;
}

/** Answers every approval dialog with `button` (VS Code refuses real modals in test mode). */
export async function answerDialogs(button: string | undefined): Promise<void> {
  (await testing()).services.prompter.setResponder(() => button);
}

export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder open');
  return folder.uri.fsPath;
}

/** True while a process with this pid exists (signal 0 probes without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Live processes whose whole command line is `line` (e.g. a unique `sleep 300.123`): pids a command
 * prints from inside its PID namespace mean nothing outside it.
 */
export function processesWithCommandLine(line: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0$/, '').split('\0').join(' ') !== line) continue;
      if (/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue;
      out.push(Number(entry));
    } catch {
      // Gone while reading.
    }
  }
  return out;
}

/** The rules of one layer in force (`user`, `workspace`, `managed`, …): none when it is not there. */
export function layerRules(settings: BashSettings, layer: RuleLayerName): PolicyRule[] {
  return settings.ruleLayers.filter((l) => l.layer === layer).flatMap((l) => l.rules);
}

/** Sets `agentBash.patterns` in the workspace and waits until the extension's settings reflect it. */
export async function setPatterns(rules: PolicyRule[] | undefined, target: vscode.ConfigurationTarget = vscode.ConfigurationTarget.Workspace): Promise<void> {
  await vscode.workspace.getConfiguration('agentBash').update('patterns', rules, target);
  const t = await testing();
  const want = JSON.stringify(rules ?? []);
  const deadline = Date.now() + 5000;
  const layer = target === vscode.ConfigurationTarget.Global ? 'user' : 'workspace';
  while (JSON.stringify(layerRules(t.services.settings(), layer)) !== want) {
    if (Date.now() > deadline) throw new Error(`agentBash.patterns did not apply: want ${want}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Switches the built-in read-only list off (true) or back to its default (false) in the workspace,
 * and waits until the settings store has it: suites that test asking with everyday commands
 * (`printf`, `git status`) would otherwise see them allowed by the list.
 */
export async function withoutBuiltinRules(off: boolean): Promise<void> {
  await vscode.workspace.getConfiguration('agentBash').update('builtinRules', off ? false : undefined, vscode.ConfigurationTarget.Workspace);
  const t = await testing();
  const deadline = Date.now() + 5000;
  while (t.services.settings().ruleLayers.some((l) => l.layer === 'builtin') === off) {
    if (Date.now() > deadline) throw new Error(`agentBash.builtinRules did not apply (${off ? 'off' : 'default'})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The VS Code terminal with this name, once it appears (terminal events reach the host asynchronously). */
/** Open terminals named `name`. */
export function terminalsNamed(name: string): vscode.Terminal[] {
  return vscode.window.terminals.filter((t) => t.name === name);
}

export async function waitForTerminal(name: string, timeoutMs = 5000): Promise<vscode.Terminal> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const term = vscode.window.terminals.find((t) => t.name === name);
    if (term) return term;
    if (Date.now() > deadline) throw new Error(`no terminal named ${name} among: ${vscode.window.terminals.map((t) => t.name).join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A tool result's text, as the agent reads it. */
export function resultText(result: ToolResult): string {
  return result.content.map((c) => c.text).join('\n');
}

/** Polls `pred` every 25 ms until it holds, or fails naming `what` after `ms`. */
export async function waitUntil(pred: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
