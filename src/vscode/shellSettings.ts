// The user's shell for command lines (bridge terminals, bang commands): the setting, else $SHELL when
// it is a shell we know how to drive, else /bin/bash.
import path from 'node:path';

const KNOWN_SHELLS = new Set(['bash', 'zsh', 'sh', 'dash', 'ksh', 'fish']);

export function resolveShell(configured: { path?: string; args?: string[] }): { path: string; args: string[] } {
  if (configured.path) return { path: configured.path, args: configured.args ?? ['-c'] };
  const envShell = process.env.SHELL;
  if (envShell && KNOWN_SHELLS.has(path.basename(envShell)) && path.basename(envShell) !== 'fish') {
    return { path: envShell, args: configured.args ?? ['-c'] };
  }
  return { path: '/bin/bash', args: configured.args ?? ['-c'] };
}
