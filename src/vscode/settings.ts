// Every `agentBash.*` read happens here. The core's settings are parsed once per change into the plain
// BashSettings object; changes take effect without a reload: callers ask `current()` per command. The
// editor-only settings (terminals, ACP agents) are read at each use.
import * as vscode from 'vscode';
import { readAgentConfigs, type AcpAgentConfig } from '../acp/agentConfig';
import type { BashSettings, InterceptorRule, PolicyRule } from '../core/contracts';
import { parsePolicyRules, RULE_MESSAGES } from '../core/policy/policyRulesSchema';
import { DEFAULT_INTERCEPTOR_RULES } from '../core/interceptor';
import type { SandboxSettings } from '../exec/sandbox/sandboxPolicy';
import { DEFAULT_SANDBOX_LIMITS, limitValue } from '../exec/sandbox/limits';
import type { SavedRules } from './approvalDialog';

const SECTION = 'agentBash';

/**
 * The valid rules of `agentBash.patterns`, checked by the same schema as `explain --rules`; each
 * invalid one is left out and reported (`[2].approval: approval must be …`), never silently dropped.
 */
function readRules(value: unknown, report?: (problem: string) => void): PolicyRule[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report?.(`agentBash.patterns: ${RULE_MESSAGES.notArray}`);
    return [];
  }
  return value.flatMap((rule, i): PolicyRule[] => {
    const parsed = parsePolicyRules([rule]);
    if (parsed.ok) return parsed.rules;
    report?.(`agentBash.patterns: rule ${i + 1} ignored: ${parsed.message.replace(/^\[0\]\.?/, '')}`);
    return [];
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

export function readSettings(
  config: vscode.WorkspaceConfiguration = vscode.workspace.getConfiguration(SECTION),
  report?: (problem: string) => void,
): BashSettings {
  const num = (key: string, fallback: number) => {
    const v = config.get<unknown>(key);
    return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
  };
  const shellPath = config.get<string>('shell.path')?.trim();
  const shellArgs = config.get<unknown>('shell.args');
  return {
    patterns: readRules(config.get('patterns'), report),
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

/** The MCP server's settings (`agentBash.mcp.*`); port 0 means any free port. */
export interface McpSettings {
  enabled: boolean;
  port: number;
}

export function readMcpSettings(config: Pick<vscode.WorkspaceConfiguration, 'get'> = vscode.workspace.getConfiguration(SECTION)): McpSettings {
  const port = config.get<unknown>('mcp.port');
  const valid = typeof port === 'number' && Number.isInteger(port) && port >= 0 && port <= 65535;
  return { enabled: config.get<boolean>('mcp.enabled') === true, port: valid ? port : 0 };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim()) : [];
}

/** `agentBash.sandbox.*`; in an untrusted workspace VS Code hands over only the user's values. */
export function readSandboxSettings(config: vscode.WorkspaceConfiguration = vscode.workspace.getConfiguration(SECTION)): SandboxSettings {
  const enabled = config.get<string>('sandbox.enabled');
  return {
    enabled: enabled === 'on' || enabled === 'off' ? enabled : 'auto',
    autoApprove: config.get<boolean>('sandbox.autoApprove') === true,
    allowWrite: stringList(config.get('sandbox.filesystem.allowWrite')),
    denyRead: stringList(config.get('sandbox.filesystem.denyRead')),
    denyWrite: stringList(config.get('sandbox.filesystem.denyWrite')),
    allowedDomains: stringList(config.get('sandbox.network.allowedDomains')),
    gitAllowWrite: config.get<boolean>('sandbox.git.allowWrite') === true,
    limits: {
      processes: limitValue(config.get('sandbox.limits.processes'), DEFAULT_SANDBOX_LIMITS.processes),
      memoryMiB: limitValue(config.get('sandbox.limits.memoryMiB'), DEFAULT_SANDBOX_LIMITS.memoryMiB),
      tmpMiB: limitValue(config.get('sandbox.limits.tmpMiB'), DEFAULT_SANDBOX_LIMITS.tmpMiB),
    },
  };
}

/** Caches the parsed settings and re-reads them when any `agentBash.*` value changes. */
function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  return a.match === b.match && a.approval === b.approval;
}

export class SettingsStore implements vscode.Disposable {
  private cached: BashSettings;
  private cachedSandbox: SandboxSettings;
  private readonly sub = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) this.reload();
  });

  /** `report` hears about settings that were left out because they are invalid. */
  constructor(private readonly report?: (problem: string) => void) {
    this.cached = readSettings(undefined, report);
    this.cachedSandbox = readSandboxSettings();
  }

  private reload(): void {
    this.cached = readSettings(undefined, this.report);
    this.cachedSandbox = readSandboxSettings();
  }

  current(): BashSettings {
    return this.cached;
  }

  /** `agentBash.terminal.reveal`: show a bridge terminal when its command starts (default true). */
  terminalReveal(): boolean {
    return vscode.workspace.getConfiguration(SECTION).get<boolean>('terminal.reveal') !== false;
  }

  /** `agentBash.terminal.keep`: released terminals kept on screen (default 10). */
  terminalKeep(): number {
    return vscode.workspace.getConfiguration(SECTION).get<number>('terminal.keep') ?? 10;
  }

  sandbox(): SandboxSettings {
    return this.cachedSandbox;
  }

  /** Adds hosts to `agentBash.sandbox.network.allowedDomains` in the user settings (never the workspace's). */
  async allowDomains(hosts: readonly string[]): Promise<void> {
    const config = vscode.workspace.getConfiguration(SECTION);
    const existing = stringList(config.inspect<unknown>('sandbox.network.allowedDomains')?.globalValue);
    const added = hosts.filter((h) => !existing.includes(h));
    if (added.length) await config.update('sandbox.network.allowedDomains', [...existing, ...added], vscode.ConfigurationTarget.Global);
    this.reload();
  }

  /**
   * Puts rules in front of `agentBash.patterns` at the chosen scope (user settings when there is no
   * workspace folder). Returns the rules actually added (those already there are not) and where.
   */
  async addRules(rules: PolicyRule[], scope: 'workspace' | 'user'): Promise<SavedRules> {
    const { config, target, existing } = this.rulesAt(scope);
    const fresh = rules.filter((r) => !existing.some((e) => sameRule(e, r)));
    await config.update('patterns', [...fresh, ...existing], target);
    this.reload();
    const isWorkspace = target === vscode.ConfigurationTarget.Workspace;
    return {
      rules: fresh,
      scope: isWorkspace ? 'workspace' : 'user',
      where: isWorkspace ? 'workspace settings (.vscode/settings.json)' : 'user settings',
    };
  }

  /** Removes exactly the rules of one `addRules` (Undo). */
  async removeRules(saved: SavedRules): Promise<void> {
    const { config, target, existing } = this.rulesAt(saved.scope);
    const kept = existing.filter((e) => !saved.rules.some((r) => sameRule(e, r)));
    await config.update('patterns', kept.length ? kept : undefined, target);
    this.reload();
  }

  private rulesAt(scope: 'workspace' | 'user') {
    const config = vscode.workspace.getConfiguration(SECTION);
    const target = scope === 'workspace' && vscode.workspace.workspaceFolders?.length
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
    const inspected = config.inspect<unknown>('patterns');
    const existing = readRules(target === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue : inspected?.globalValue);
    return { config, target, existing };
  }

  dispose(): void {
    this.sub.dispose();
  }
}

/** `agentBash.acp.agents`: the valid entries; `report` hears about each one left out. */
export function readAcpAgents(report: (problem: string) => void): AcpAgentConfig[] {
  return readAgentConfigs(vscode.workspace.getConfiguration(SECTION).get<unknown>('acp.agents'), report);
}
