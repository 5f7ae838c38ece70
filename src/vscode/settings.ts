// Reads `agentBash.*` once per change into the plain BashSettings object the core uses. Changes take
// effect without a reload: callers ask `current()` per command.
import * as vscode from 'vscode';
import type { BashSettings, InterceptorRule, PolicyRule, Verdict } from '../core/contracts';
import { DEFAULT_INTERCEPTOR_RULES } from '../core/interceptor';

const SECTION = 'agentBash';
const VERDICTS = new Set<Verdict>(['allow', 'prompt', 'deny']);

function readRules(value: unknown): PolicyRule[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((r): PolicyRule[] => {
    if (!r || typeof r !== 'object') return [];
    const { match, approval, allowRedirects } = r as Record<string, unknown>;
    if (typeof match !== 'string' || !VERDICTS.has(approval as Verdict)) return [];
    return [{ match, approval: approval as Verdict, ...(allowRedirects === true ? { allowRedirects: true } : {}) }];
  });
}

function readInterceptorRules(value: unknown): InterceptorRule[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((r): InterceptorRule[] => {
    if (!r || typeof r !== 'object') return [];
    const { pattern, tool, message, flags } = r as Record<string, unknown>;
    if (typeof pattern !== 'string' || typeof tool !== 'string' || typeof message !== 'string') return [];
    return [{ pattern, tool, message, ...(typeof flags === 'string' ? { flags } : {}) }];
  });
}

export function readSettings(config: vscode.WorkspaceConfiguration = vscode.workspace.getConfiguration(SECTION)): BashSettings {
  const num = (key: string, fallback: number) => {
    const v = config.get<unknown>(key);
    return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
  };
  const shellPath = config.get<string>('shell.path')?.trim();
  const shellArgs = config.get<unknown>('shell.args');
  return {
    patterns: readRules(config.get('patterns')),
    interceptor: {
      enabled: config.get<boolean>('interceptor.enabled') === true,
      // The user's rules first, then the built-in ones (which only fire when their tool exists).
      patterns: [...readInterceptorRules(config.get('interceptor.patterns')), ...DEFAULT_INTERCEPTOR_RULES],
    },
    maxTimeout: num('maxTimeout', 0),
    asyncEnabled: config.get<boolean>('async.enabled') !== false,
    asyncMaxJobs: Math.max(1, Math.floor(num('async.maxJobs', 100))),
    autoBackground: {
      enabled: config.get<boolean>('autoBackground.enabled') === true,
      thresholdMs: Math.max(0, Math.floor(num('autoBackground.thresholdMs', 60000))),
    },
    artifactHeadBytes: Math.max(0, num('artifactHeadBytes', 20)),
    outputMaxColumns: Math.max(0, Math.floor(num('outputMaxColumns', 768))),
    shell: {
      ...(shellPath ? { path: shellPath } : {}),
      ...(Array.isArray(shellArgs) && shellArgs.every((a) => typeof a === 'string') ? { args: shellArgs as string[] } : {}),
    },
    direnv: config.get<string>('direnv') === 'off' ? 'off' : 'auto',
  };
}

/** Caches the parsed settings and re-reads them when any `agentBash.*` value changes. */
export class SettingsStore implements vscode.Disposable {
  private cached: BashSettings = readSettings();
  private readonly sub = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) this.cached = readSettings();
  });

  current(): BashSettings {
    return this.cached;
  }

  get<T>(key: string): T | undefined {
    return vscode.workspace.getConfiguration(SECTION).get<T>(key);
  }

  /** Appends rules to `agentBash.patterns` at the chosen scope, before the existing ones there. */
  async addRules(rules: PolicyRule[], scope: 'workspace' | 'user'): Promise<void> {
    const config = vscode.workspace.getConfiguration(SECTION);
    const target = scope === 'workspace' && vscode.workspace.workspaceFolders?.length
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
    const inspected = config.inspect<unknown>('patterns');
    const existing = readRules(target === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue : inspected?.globalValue);
    const fresh = rules.filter((r) => !existing.some((e) => e.match === r.match && e.approval === r.approval));
    await config.update('patterns', [...fresh, ...existing], target);
    this.cached = readSettings();
  }

  dispose(): void {
    this.sub.dispose();
  }
}
