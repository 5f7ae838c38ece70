// The shell for command lines in bridge terminals: `agentBash.shell.*`, else the same choice the local
// executor makes ($SHELL when it is bash or zsh, else bash from PATH), with `-c` and no login shell by
// default (the extension host already has the user's login environment).
import { getShellConfig } from '../../exec/shellConfig';

export function resolveShell(configured: { path?: string; args?: string[] }): { path: string; args: string[] } {
  const config = getShellConfig({
    ...(configured.path ? { shellPath: configured.path } : {}),
    shellArgs: configured.args && configured.args.length > 0 ? configured.args : ['-c'],
  });
  return { path: config.shell, args: config.args };
}
