// The stdio form of the copied MCP configuration must keep working when the extension updates (its
// folder name carries the version) and must judge commands by the person's own rules. So the
// configuration names a launcher in the extension's global storage, rewritten at every activation
// to point at the current `dist/cli.js`, with the user-level rules exported beside it (the built-in
// list and the managed file are read by the CLI itself). No vscode here: the host passes the paths.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PolicyRule } from '../core/contracts';

export const LAUNCHER_NAME = 'agent-bash-mcp';
export const LAUNCHER_RULES_NAME = 'mcp-user-rules.json';

/** `sh` quoting: the paths are the extension's and the storage's, but may hold spaces or quotes. */
function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function launcherScript(opts: { node: string; cliPath: string; rulesPath: string }): string {
  return [
    '#!/bin/sh',
    '# Written by Agent Bash at every activation: the stdio MCP server of the installed version, with',
    "# the user's rules (exported beside this file). Arguments are passed on (e.g. --cwd DIR, --yes).",
    `exec ${shQuote(opts.node)} ${shQuote(opts.cliPath)} mcp --rules ${shQuote(opts.rulesPath)} "$@"`,
    '',
  ].join('\n');
}

/** Writes (or rewrites) the launcher and the rules file; returns the launcher's path. */
export function writeStdioLauncher(opts: { dir: string; cliPath: string; userRules: readonly PolicyRule[]; node?: string }): string {
  fs.mkdirSync(opts.dir, { recursive: true });
  const rulesPath = path.join(opts.dir, LAUNCHER_RULES_NAME);
  const launcher = path.join(opts.dir, LAUNCHER_NAME);
  // Written to a temporary name and renamed: a client starting the server meanwhile reads a whole file.
  const write = (file: string, text: string, mode: number): void => {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text, { mode });
    fs.renameSync(tmp, file);
  };
  write(rulesPath, `${JSON.stringify(opts.userRules, null, 2)}\n`, 0o600);
  write(launcher, launcherScript({ node: opts.node ?? 'node', cliPath: opts.cliPath, rulesPath }), 0o755);
  return launcher;
}
