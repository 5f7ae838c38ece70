// One MCP `Server` per client session (stdio: the process; HTTP: one per Mcp-Session-Id), wired to
// the tools. The low-level server is used instead of McpServer so `bash` advertises exactly the JSON
// schema the LM tool does and its arguments reach the pipeline's own validation (exact messages).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallerInfo } from '../core/contracts';
import type { McpCallerSession } from './mcpSession';
import { callMcpTool, mcpToolList, type McpBackend } from './mcpTools';
import { KEEP_ALIVE_MS, keepAliveMessage, PROGRESS_INTERVAL_MS, ProgressReporter } from './progressReporter';

export const MCP_SERVER_NAME = 'agent-bash';
/** Shown for a client that did not send `clientInfo.name`. */
export const UNNAMED_CLIENT = 'MCP client';

export function unknownToolMessage(name: string): string {
  return `Unknown tool: ${name}`;
}

/** Every tool call's answer (and the server's instructions) when the server could not start as configured. */
export function configErrorMessage(error: string, usage: string): string {
  return (
    `Agent Bash cannot run commands: its MCP server could not start as configured: ${error}. ` +
    "Fix the server's arguments in this client's MCP configuration and restart the server.\n" +
    usage
  );
}

/**
 * The server of a configuration that cannot run (a mistyped --rules path, an unknown option): it
 * still answers `initialize` and lists its tools, so the client connects and shows its model and its
 * user the reason on every call, instead of a closed connection whose cause went to stderr.
 */
export function createConfigErrorMcpServer(message: string, version: string): Server {
  const server = new Server({ name: MCP_SERVER_NAME, version }, { capabilities: { tools: {} }, instructions: message });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mcpToolList({ asyncEnabled: () => false, route: 'stdio' }) }));
  server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: message }], isError: true }));
  return server;
}

export function createBashMcpServer(backend: McpBackend, session: McpCallerSession, version: string): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, version },
    {
      capabilities: { tools: {} },
      instructions: 'Agent Bash: run shell commands under the user\'s policy (allow/prompt/deny rules, approvals), with bounded output.',
    },
  );
  const clientName = (): string => server.getClientVersion()?.name || UNNAMED_CLIENT;
  const caller = (): CallerInfo => ({ kind: 'mcp', name: clientName(), sessionId: session.sessionId });
  session.nameClient(clientName);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mcpToolList(backend) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : new ProgressReporter(
            (n, message) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: n, message } }),
            PROGRESS_INTERVAL_MS,
            KEEP_ALIVE_MS,
            (seconds) => keepAliveMessage(seconds, backend.route !== 'stdio'),
          );
    const run = session.begin(extra.requestId, extra.signal);
    try {
      const result = await callMcpTool(backend, {
        name: request.params.name,
        args: request.params.arguments,
        session,
        caller: caller(),
        signal: run.signal,
        ...(progress ? { onProgress: (tail: string) => progress.update(tail) } : {}),
      });
      if (!result) throw new McpError(ErrorCode.InvalidParams, unknownToolMessage(request.params.name));
      return result;
    } finally {
      progress?.stop();
      run.end();
    }
  });
  return server;
}
