// Where rule layers come from outside VS Code's settings: rules files (`--rules FILE`, the managed
// file an administrator places on the machine) and the built-in read-only list. The extension and
// the CLI read them through these functions, so a file means the same everywhere and its problems
// read the same.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from './builtinRules';
import type { PolicyRule, RuleLayer } from '../policyContracts';
import { parsePolicyRules } from './policyRulesSchema';

/** Every message about a rules file. Tests assert these. */
export const RULES_FILE_MESSAGES = {
  unreadable: (file: string, why: string) => `cannot read rules file ${file}: ${why}`,
  notJson: (file: string, why: string) => `rules file ${file} is not valid JSON: ${why}`,
  invalid: (file: string, why: string) => `rules file ${file}: ${why}`,
  /** The reason every command gets while the managed file is unusable. */
  managedUnusable: (problem: string) => `the managed rules file cannot be used (${problem}), so every command asks until it is fixed`,
} as const;

/**
 * Internal, for tests only: a path that stands for the managed rules file in the extension (the
 * CLI has `--managed-rules FILE`). Nothing else should set it.
 */
export const MANAGED_RULES_ENV = 'AGENT_BASH_MANAGED_RULES';

/** Where an administrator places the managed rules file on this OS. */
export function managedRulesPath(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  if (platform === 'win32') return path.win32.join(env.ProgramData ?? 'C:\\ProgramData', 'AgentBash', 'rules.json');
  if (platform === 'darwin') return '/Library/Application Support/AgentBash/rules.json';
  return '/etc/agent-bash/rules.json';
}

export type RulesFileRead =
  | { ok: true; rules: PolicyRule[] }
  /** `missing`: there is no such file (ENOENT, ENOTDIR). */
  | { ok: false; missing: boolean; message: string };

function errorCode(err: unknown): string {
  return err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
}

/** A JSON array of `{match, approval, allowRedirects?}` rules, or the exact problem with it. */
export function readRulesFileText(file: string): RulesFileRead {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = errorCode(err);
    return { ok: false, missing: code === 'ENOENT' || code === 'ENOTDIR', message: RULES_FILE_MESSAGES.unreadable(file, code) };
  }
  // Editors on Windows save "UTF-8 with BOM"; the BOM is an encoding mark, not JSON text.
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, missing: false, message: RULES_FILE_MESSAGES.notJson(file, err instanceof Error ? err.message : String(err)) };
  }
  const parsed = parsePolicyRules(json);
  if (!parsed.ok) return { ok: false, missing: false, message: RULES_FILE_MESSAGES.invalid(file, parsed.message) };
  return { ok: true, rules: parsed.rules };
}

/**
 * The managed layer read from `file`: undefined when there is no file; when it cannot be read or
 * is invalid, a layer without rules whose `problem` makes every command ask and says why.
 */
export function readManagedLayer(file: string): RuleLayer | undefined {
  const read = readRulesFileText(file);
  if (read.ok) return { layer: 'managed', source: file, rules: read.rules };
  if (read.missing) return undefined;
  return { layer: 'managed', source: file, rules: [], problem: RULES_FILE_MESSAGES.managedUnusable(read.message) };
}

/** The built-in read-only list as a layer (one object: its rules compile once). */
const BUILTIN_LAYER: RuleLayer = Object.freeze({ layer: 'builtin', source: BUILTIN_LAYER_SOURCE, rules: BUILTIN_RULES as PolicyRule[] });

export function builtinLayer(): RuleLayer {
  return BUILTIN_LAYER;
}

/**
 * The managed file, re-read only when it changes (a `stat` per call), so an administrator's edit
 * applies to the next command without a reload, and the layer object stays the same otherwise.
 */
export class ManagedRulesFile {
  private key: string | undefined;
  private layer: RuleLayer | undefined;

  /** `file` is asked at each call (the test override may change). */
  constructor(private readonly file: () => string) {}

  current(): RuleLayer | undefined {
    const file = this.file();
    let key: string;
    try {
      const st = fs.statSync(file);
      key = `${file}\0${st.ino}\0${st.size}\0${st.mtimeMs}\0${st.ctimeMs}`;
    } catch (err) {
      const code = errorCode(err);
      // No file: no layer. Any other failure is read (and reported) like the file itself.
      key = code === 'ENOENT' || code === 'ENOTDIR' ? `${file}\0missing` : `${file}\0${code}`;
    }
    if (key !== this.key) {
      this.key = key;
      this.layer = readManagedLayer(file);
    }
    return this.layer;
  }
}
