// Room vscode/settings/: every read of the agentBash.* settings.
// Every `agentBash.*` read happens here. The core's settings are parsed once per change into the plain
// BashSettings object; changes take effect without a reload: callers ask `current()` per command. The
// editor-only settings (terminals, ACP agents) are read at each use.
import * as vscode from 'vscode';
import { plainNotice } from '../../core/humanMessages';
import { DEFAULT_MCP_RESULT_CHARS, MIN_MCP_RESULT_CHARS } from '../../mcp/resultCap';
import { readAgentConfigs, type AcpAgentConfig } from '../../acp/agentConfig';
import type { BashSettings, InterceptorRule, PolicyRule, RuleLayer } from '../../core/contracts';
import { parsePolicyRules, RULE_MESSAGES } from '../../core/policy/rules/policyRulesSchema';
import { builtinLayer, ManagedRulesFile, managedRulesPath, MANAGED_RULES_ENV } from '../../core/policy/rules/ruleLayers';
import { DEFAULT_INTERCEPTOR_RULES } from '../../core/interceptor';
import type { SandboxSettings } from '../../exec/sandbox/sandboxPolicy';
import { parseAllowEntry } from '../../exec/sandbox/network/proxyTarget';
import { DEFAULT_SANDBOX_LIMITS, limitValue, renamedLimit } from '../../exec/sandbox/kernel/limits';
import type { SavedRules } from '../approvals/approvalDialog';
import { settingDefault } from '../../core/settingsSchema';

const SECTION = 'agentBash';

/**
 * The valid rules of `agentBash.patterns`, checked by the same schema as `explain --rules`; each
 * invalid one is left out and reported (`[2].approval: approval must be …`), never silently dropped.
 */
function readRules(value: unknown, report?: (problem: string) => void, where = ''): PolicyRule[] {
  if (value === undefined) return [];
  const name = `agentBash.patterns${where ? ` (${where})` : ''}`;
  if (!Array.isArray(value)) {
    report?.(`${name}: ${RULE_MESSAGES.notArray}`);
    return [];
  }
  return value.flatMap((rule, i): PolicyRule[] => {
    const parsed = parsePolicyRules([rule]);
    if (parsed.ok) return parsed.rules;
    report?.(`${name}: rule ${i + 1} ignored: ${parsed.message.replace(/^\[0\]\.?/, '')}`);
    return [];
  });
}

export const USER_LAYER_SOURCE = 'user settings';
export const WORKSPACE_LAYER_SOURCE = 'workspace settings (.vscode/settings.json)';

/** Where the workspace layer is read from: `.vscode/settings.json`, or the `.code-workspace` file. */
function workspaceSource(): string {
  const file = vscode.workspace.workspaceFile;
  return file && file.scheme !== 'untitled' ? `workspace settings (${file.path.split('/').pop() ?? file.path})` : WORKSPACE_LAYER_SOURCE;
}

/**
 * `agentBash.patterns` of every scope, each its own layer (never the merged `get()`, which keeps only
 * the most specific scope's array): user settings; in a trusted workspace, the workspace's and, in a
 * multi-root workspace, each folder's. The built-in list comes first unless `agentBash.builtinRules`
 * is false. The managed file is added by SettingsStore at each use.
 */
export function readSettingsLayers(config: vscode.WorkspaceConfiguration, report?: (problem: string) => void): RuleLayer[] {
  const layers: RuleLayer[] = [];
  if (config.get<unknown>('builtinRules') !== false) layers.push(builtinLayer());
  const inspected = config.inspect<unknown>('patterns');
  layers.push({ layer: 'user', source: USER_LAYER_SOURCE, rules: readRules(inspected?.globalValue, report, USER_LAYER_SOURCE) });
  if (!vscode.workspace.isTrusted) return layers;
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length > 0 || vscode.workspace.workspaceFile) {
    const source = workspaceSource();
    layers.push({ layer: 'workspace', source, rules: readRules(inspected?.workspaceValue, report, source) });
  }
  // In a single-folder window the folder's settings are the workspace settings, read above.
  if (vscode.workspace.workspaceFile) {
    for (const folder of folders) {
      const value = vscode.workspace.getConfiguration(SECTION, folder.uri).inspect<unknown>('patterns')?.workspaceFolderValue;
      const source = `folder settings (${folder.name})`;
      layers.push({ layer: 'folder', source, rules: readRules(value, report, source) });
    }
  }
  return layers;
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
    ruleLayers: readSettingsLayers(config, report),
    interceptor: {
      enabled: config.get<boolean>('interceptor.enabled') === true,
      // The user's rules first, then the built-in ones (which only fire when their tool exists).
      patterns: [...readInterceptorRules(config.get('interceptor.patterns')), ...DEFAULT_INTERCEPTOR_RULES],
    },
    maxTimeout: num('maxTimeout', settingDefault('agentBash.maxTimeout')),
    asyncEnabled: config.get<boolean>('async.enabled') !== false,
    asyncMaxJobs: Math.max(1, Math.floor(num('async.maxJobs', settingDefault('agentBash.async.maxJobs')))),
    autoBackground: {
      enabled: config.get<boolean>('autoBackground.enabled') === true,
      thresholdMs: Math.max(0, Math.floor(num('autoBackground.thresholdMs', settingDefault('agentBash.autoBackground.thresholdMs')))),
    },
    artifactHeadBytes: Math.max(0, num('artifactHeadBytes', settingDefault('agentBash.artifactHeadBytes'))),
    outputMaxColumns: Math.max(0, Math.floor(num('outputMaxColumns', settingDefault('agentBash.outputMaxColumns')))),
    shell: {
      ...(shellPath ? { path: shellPath } : {}),
      ...(Array.isArray(shellArgs) && shellArgs.every((a) => typeof a === 'string') ? { args: shellArgs as string[] } : {}),
    },
    direnv: config.get<string>('direnv') === 'off' ? 'off' : 'auto',
  };
}

/** The MCP server's settings (`agentBash.mcp.*`); port 0 means any free port. */
/** The user-level rules alone (what the stdio launcher exports: it has no workspace). */
export function readUserRules(config: Pick<vscode.WorkspaceConfiguration, 'inspect'> = vscode.workspace.getConfiguration(SECTION)): PolicyRule[] {
  return readRules(config.inspect<unknown>('patterns')?.globalValue ?? []);
}

export interface McpSettings {
  enabled: boolean;
  port: number;
  /** `agentBash.mcp.maxResultCharacters`: a result's text at most (resultCap.ts). */
  maxResultChars: number;
}

export function readMcpSettings(config: Pick<vscode.WorkspaceConfiguration, 'get'> = vscode.workspace.getConfiguration(SECTION)): McpSettings {
  const port = config.get<unknown>('mcp.port');
  const valid = typeof port === 'number' && Number.isInteger(port) && port >= 0 && port <= 65535;
  const chars = config.get<unknown>('mcp.maxResultCharacters');
  const maxResultChars = typeof chars === 'number' && Number.isInteger(chars) && chars >= MIN_MCP_RESULT_CHARS ? chars : DEFAULT_MCP_RESULT_CHARS;
  return { enabled: config.get<boolean>('mcp.enabled') === true, port: valid ? port : 0, maxResultChars };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim()) : [];
}

/** `agentBash.sandbox.*`; in an untrusted workspace VS Code hands over only the user's values. */
export function readSandboxSettings(config: vscode.WorkspaceConfiguration = vscode.workspace.getConfiguration(SECTION), report?: (problem: string) => void): SandboxSettings {
  const enabled = config.get<string>('sandbox.enabled');
  const allowedDomains = stringList(config.get('sandbox.network.allowedDomains'));
  for (const entry of allowedDomains) {
    const parsed = parseAllowEntry(entry);
    if (!parsed.ok) report?.(`agentBash.sandbox.network.allowedDomains: "${entry}" opens nothing: ${parsed.why}`);
  }
  return {
    enabled: enabled === 'on' || enabled === 'off' ? enabled : 'auto',
    autoApprove: config.get<boolean>('sandbox.autoApprove') === true,
    allowWrite: stringList(config.get('sandbox.filesystem.allowWrite')),
    denyRead: stringList(config.get('sandbox.filesystem.denyRead')),
    denyWrite: stringList(config.get('sandbox.filesystem.denyWrite')),
    allowedDomains,
    envAllow: stringList(config.get('sandbox.env.allow')),
    gitAllowWrite: config.get<boolean>('sandbox.git.allowWrite') === true,
    sharedCaches: config.get<boolean>('sandbox.caches.shareWithHost') === true,
    limits: {
      processes: limitValue(config.get('sandbox.limits.processes'), DEFAULT_SANDBOX_LIMITS.processes),
      memoryMiB: renamedLimit(config.get('sandbox.limits.memory'), config.get('sandbox.limits.memoryMiB'), DEFAULT_SANDBOX_LIMITS.memoryMiB),
      tmpMiB: renamedLimit(config.get('sandbox.limits.tmpdirSize'), config.get('sandbox.limits.tmpMiB'), DEFAULT_SANDBOX_LIMITS.tmpMiB),
    },
  };
}

/** Caches the parsed settings and re-reads them when any `agentBash.*` value changes. */
function sameRule(a: unknown, b: PolicyRule): boolean {
  if (!a || typeof a !== 'object') return false;
  const { match, approval, exact } = a as Record<string, unknown>;
  return match === b.match && approval === b.approval && (exact === true) === (b.exact === true);
}

/**
 * The managed rules file: its fixed path per OS, or, for tests only, the file named by
 * AGENT_BASH_MANAGED_RULES (read at each use, so a test can point the running extension at one).
 */
export function managedRulesFile(): string {
  return process.env[MANAGED_RULES_ENV] || managedRulesPath();
}

export class SettingsStore implements vscode.Disposable {
  private cached: BashSettings;
  private cachedSandbox: SandboxSettings;
  private readonly managed = new ManagedRulesFile(managedRulesFile);
  /** The settings with the managed layer, rebuilt when either changes. */
  private composed: { base: BashSettings; managed: RuleLayer | undefined; settings: BashSettings } | undefined;
  /** The managed file's problem last told to the user (told once per distinct problem). */
  private toldManaged: string | undefined;
  private readonly sub = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) this.reload();
  });
  // The workspace and folder layers depend on trust and on the folders open.
  private readonly trustSub = vscode.workspace.onDidGrantWorkspaceTrust(() => this.reload());
  private readonly foldersSub = vscode.workspace.onDidChangeWorkspaceFolders(() => this.reload());

  /** `report` hears about settings that were left out because they are invalid. */
  constructor(private readonly report?: (problem: string) => void) {
    this.cached = readSettings(undefined, report);
    this.cachedSandbox = readSandboxSettings(undefined, this.report);
  }

  private reload(): void {
    this.cached = readSettings(undefined, this.report);
    this.cachedSandbox = readSandboxSettings(undefined, this.report);
  }

  /** The settings in force; the managed file is checked at each call (a `stat`) and re-read when it changed. */
  current(): BashSettings {
    const managed = this.managed.current();
    if (this.composed?.base !== this.cached || this.composed.managed !== managed) {
      const settings = managed ? { ...this.cached, ruleLayers: [managed, ...this.cached.ruleLayers] } : this.cached;
      this.composed = { base: this.cached, managed, settings };
      this.tellManaged(managed);
    }
    return this.composed.settings;
  }

  /** The rule layers in force (for checking rules before they are saved, and for showing them). */
  ruleLayers(): RuleLayer[] {
    return this.current().ruleLayers;
  }

  private tellManaged(managed: RuleLayer | undefined): void {
    const problem = managed?.problem;
    if (problem === undefined || problem === this.toldManaged) {
      if (problem === undefined) this.toldManaged = undefined;
      return;
    }
    this.toldManaged = problem;
    this.report?.(problem);
    void vscode.window.showWarningMessage(plainNotice(`Agent Bash: ${problem}.`));
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
   * Appends rules at the END of `agentBash.patterns` at the chosen scope (user settings when there is
   * no workspace folder), so that scope's own deny and prompt rules keep matching first; the other
   * scopes' rules stay in force (layers). Returns the rules actually added (those already there are
   * not) and where. The caller checks them first (proposalCheck.ts).
   */
  async addRules(rules: PolicyRule[], scope: 'workspace' | 'user'): Promise<SavedRules> {
    const { config, target, existing } = this.rulesAt(scope);
    const fresh = rules.filter((r) => !existing.some((e) => sameRule(e, r)));
    await config.update('patterns', [...existing, ...fresh], target);
    this.reload();
    const isWorkspace = target === vscode.ConfigurationTarget.Workspace;
    return {
      rules: fresh,
      scope: isWorkspace ? 'workspace' : 'user',
      where: isWorkspace ? 'workspace settings (.vscode/settings.json)' : 'user settings',
    };
  }

  /**
   * Writes the whole rule list of one scope (user, or the workspace when one is open), in order: for
   * a view that adds, removes and moves rules. An empty list removes the setting.
   */
  async setRules(scope: 'workspace' | 'user', rules: PolicyRule[]): Promise<void> {
    const { config, target } = this.rulesAt(scope);
    await config.update('patterns', rules.length ? rules : undefined, target);
    this.reload();
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
    const value = target === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue : inspected?.globalValue;
    // Entries as written, invalid ones included: saving must not silently drop what the user wrote.
    const existing: unknown[] = Array.isArray(value) ? value : [];
    return { config, target, existing };
  }

  dispose(): void {
    this.sub.dispose();
    this.trustSub.dispose();
    this.foldersSub.dispose();
  }
}

/** `agentBash.acp.agents`: the valid entries; `report` hears about each one left out. */
export function readAcpAgents(report: (problem: string) => void): AcpAgentConfig[] {
  return readAgentConfigs(vscode.workspace.getConfiguration(SECTION).get<unknown>('acp.agents'), report);
}
