// Which shell runs the agent's commands, with which arguments and base environment.
import { accessSync, constants as fsConstants, existsSync } from 'node:fs';
import path from 'node:path';
import { hostProgram } from './hostPrograms';

export interface ShellConfig {
  /** Absolute path (or bare name as a last resort) of the shell binary. */
  shell: string;
  /** Arguments that precede the command line; always end with the "run this string" flag. */
  args: string[];
  /** The base environment of the shell (the process env plus the marks `getShellConfig` adds). */
  env: Record<string, string>;
  /** `PI_SHELL_PREFIX` and friends: prepended as `<prefix> <command>` (profilers, strace). */
  prefix?: string;
}

export interface ShellConfigOptions {
  /** The `agentBash.shell.path` setting; an error when it does not exist. */
  shellPath?: string;
  /** The `agentBash.shell.args` setting; replaces the computed arguments when non-empty. */
  shellArgs?: string[];
  /** Defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

export type ShellKind = 'bash' | 'zsh' | 'fish' | 'sh' | 'cmd' | 'other';

export const SHELL_NOT_FOUND = (p: string): string => `Configured shell not found or not executable: ${p}`;

/** The family of a shell path, by its basename (`/usr/local/bin/bash5` → bash). */
export function shellKind(shellPath: string): ShellKind {
  // Split on both separators: a Windows path must classify the same on any host.
  const base = (shellPath.split(/[\\/]/).pop() ?? shellPath).toLowerCase().replace(/\.exe$/, '');
  if (base === 'cmd') return 'cmd';
  if (base.includes('bash')) return 'bash';
  if (base.includes('zsh')) return 'zsh';
  if (base.includes('fish')) return 'fish';
  if (base === 'sh' || base === 'dash' || base === 'ash' || base === 'ksh' || base === 'mksh') return 'sh';
  return 'other';
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** First executable `name` on PATH, then in the usual system directories. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv, extraDirs: readonly string[] = []): string | undefined {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of [...dirs, ...extraDirs]) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

const STANDARD_DIRS = ['/bin', '/usr/bin', '/usr/local/bin', '/opt/homebrew/bin'];

function windowsShell(env: NodeJS.ProcessEnv): string {
  const roots = [
    env.ProgramFiles && path.win32.join(env.ProgramFiles, 'Git'),
    env['ProgramFiles(x86)'] && path.win32.join(env['ProgramFiles(x86)'], 'Git'),
    env.LOCALAPPDATA && path.win32.join(env.LOCALAPPDATA, 'Programs', 'Git'),
    env.GIT_INSTALL_ROOT,
    env.USERPROFILE && path.win32.join(env.USERPROFILE, 'scoop', 'apps', 'git', 'current'),
  ].filter((root): root is string => typeof root === 'string' && root !== '');
  for (const root of roots) {
    const candidate = path.win32.join(root, 'bin', 'bash.exe');
    if (existsSync(candidate)) return candidate;
  }
  const onPath = findOnPath('bash.exe', env);
  if (onPath) return onPath;
  const sh = findOnPath('sh.exe', env);
  if (sh) {
    const sibling = path.win32.join(path.win32.dirname(sh), 'bash.exe');
    return existsSync(sibling) ? sibling : sh;
  }
  return env.ComSpec ?? 'cmd.exe';
}

function pickShell(options: ShellConfigOptions, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (options.shellPath) {
    if (!existsSync(options.shellPath) || (platform !== 'win32' && !isExecutable(options.shellPath))) {
      throw new Error(SHELL_NOT_FOUND(options.shellPath));
    }
    return options.shellPath;
  }
  if (platform === 'win32') return windowsShell(env);
  const user = env.SHELL;
  if (user && (shellKind(user) === 'bash' || shellKind(user) === 'zsh') && isExecutable(user)) return user;
  // From trusted PATH folders only (hostPrograms.ts): a `bash` a sandboxed command wrote into a
  // workspace folder on PATH must not become the shell of a later unsandboxed call.
  const searched = [env.PATH ?? '', ...STANDARD_DIRS].join(path.delimiter);
  return hostProgram('bash', searched) ?? hostProgram('sh', searched) ?? '/bin/sh';
}

/** The shell for this process: the shell, its arguments, its base env and the optional prefix. */
export function getShellConfig(options: ShellConfigOptions = {}): ShellConfig {
  const source = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const shell = pickShell(options, source, platform);

  let args: string[];
  if (options.shellArgs && options.shellArgs.length > 0) args = [...options.shellArgs];
  else if (shellKind(shell) === 'cmd') args = ['/c'];
  else if (truthy(source.AGENT_BASH_NO_LOGIN) || truthy(source.PI_BASH_NO_LOGIN) || truthy(source.CLAUDE_BASH_NO_LOGIN)) {
    args = ['-c'];
  } else args = ['-l', '-c'];

  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) if (value !== undefined) env[key] = value;
  Object.assign(env, shellMarks(source, shell));

  const prefix = source.AGENT_BASH_SHELL_PREFIX || source.PI_SHELL_PREFIX || source.CLAUDE_CODE_SHELL_PREFIX;
  return prefix ? { shell, args, env, prefix } : { shell, args, env };
}

/** What `getShellConfig` sets on top of the source env for `shell`. */
export function shellMarks(source: NodeJS.ProcessEnv, shell: string): Record<string, string> {
  const marks: Record<string, string> = { SHELL: shell, GIT_EDITOR: 'true' };
  // Lets scripts and tools know they run under an agent (the role OMPCODE/CLAUDECODE play upstream).
  marks.AGENT_BASH = '1';
  if (!truthy(source.AGENT_BASH_NO_CI) && !truthy(source.PI_BASH_NO_CI) && !truthy(source.CLAUDE_BASH_NO_CI)) {
    marks.CI = 'true';
  }
  return marks;
}

/** `<prefix> <command>`, or the command alone. */
export function withPrefix(command: string, prefix: string | undefined): string {
  return prefix ? `${prefix} ${command}` : command;
}

/** The arguments without the trailing "run this string" flag: how a persistent shell is started. */
export function interactiveFreeArgs(args: readonly string[]): string[] {
  const out = [...args];
  const last = out[out.length - 1];
  if (last === '-c' || last === '/c') out.pop();
  return out;
}

/** A POSIX single-quoted word: `it's` → `'it'\''s'`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
