// Interceptor rules name oh-my-pi's tools (read, grep, glob, edit, write, hub). In VS Code a rule
// applies only when a language model tool that does the same job is registered (Copilot's
// readFile, findTextInFiles, findFiles, …); with no such tool the shell command is the best there is.
import * as vscode from 'vscode';

const EQUIVALENTS: Readonly<Record<string, readonly string[]>> = {
  read: ['readfile', 'read_file'],
  grep: ['findtextinfiles', 'grep', 'search_text'],
  glob: ['findfiles', 'glob', 'file_search'],
  edit: ['replacestring', 'editfile', 'edit_file', 'applypatch'],
  write: ['createfile', 'create_file', 'writefile'],
};

export function vscodeToolAvailable(tool: string): boolean {
  const names = EQUIVALENTS[tool] ?? [tool.toLowerCase()];
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- hosts without the Language Model API lack `vscode.lm`, whatever the types say.
  const tools = vscode.lm?.tools ?? [];
  return tools.some((t) => {
    const name = t.name.toLowerCase();
    return name !== 'agent_bash' && names.some((n) => name.includes(n));
  });
}
