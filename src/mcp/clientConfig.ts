// The text "Agent Bash: Copy MCP Configuration" puts on the clipboard: a ready entry for Claude Code
// (a `claude mcp add` line), Codex (a config.toml table) and any client that reads the common JSON
// `mcpServers` shape, plus the stdio form for clients that only spawn processes.

export const MCP_SERVER_KEY = 'agent-bash';

export function mcpUrl(port: number): string {
  return `http://127.0.0.1:${port}/mcp`;
}

export interface ClientConfigInput {
  port: number;
  token: string;
  /** The stdio launcher (stdioLauncher.ts): stable across updates, with the user's rules. */
  launcher: string;
}

export function claudeCodeCommand(port: number, token: string): string {
  return `claude mcp add --transport http ${MCP_SERVER_KEY} ${mcpUrl(port)} --header "Authorization: Bearer ${token}"`;
}

export function codexToml(port: number, token: string): string {
  return [`[mcp_servers.${MCP_SERVER_KEY}]`, `url = "${mcpUrl(port)}"`, `http_headers = { Authorization = "Bearer ${token}" }`].join('\n');
}

export function genericJson(port: number, token: string): string {
  const entry = { type: 'http', url: mcpUrl(port), headers: { Authorization: `Bearer ${token}` } };
  return JSON.stringify({ mcpServers: { [MCP_SERVER_KEY]: entry } }, null, 2);
}

export function mcpClientConfig(input: ClientConfigInput): string {
  const { port, token, launcher } = input;
  return [
    `# Agent Bash MCP server: ${mcpUrl(port)} (the token is secret; rotate it with "Agent Bash: Rotate MCP Token")`,
    '',
    '# Claude Code (run in a terminal):',
    claudeCodeCommand(port, token),
    '',
    '# Codex (~/.codex/config.toml):',
    codexToml(port, token),
    '',
    '# Cline, Roo, Continue, Gemini CLI and other clients (JSON "mcpServers"):',
    genericJson(port, token),
    '',
    '# Clients that only spawn processes (stdio, no VS Code dialogs; your user rules and the built-in list apply,',
    '# other prompt-level commands are refused unless you add --yes; "sandbox": "off" also needs --allow-unsandboxed):',
    `${JSON.stringify(launcher)} --cwd "$PWD"`,
    JSON.stringify({ mcpServers: { [MCP_SERVER_KEY]: { command: launcher, args: ['--cwd', '.'] } } }, null, 2),
    '',
  ].join('\n');
}
