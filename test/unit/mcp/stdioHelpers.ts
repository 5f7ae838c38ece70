// Shared by the stdio MCP server tests: the real server (`node dist/cli.js mcp`) through the SDK's
// own stdio client, with a home of its own so the machine's login profile does not speak into results.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const CLI = path.resolve(__dirname, '../../../../dist/cli.js');
/** Generous bounds: these tests share two cores with other suites. */
export const CALL_TIMEOUT_MS = 180_000;

export type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

export function serverEnv(cwd: string): Record<string, string> {
  const home = path.join(cwd, 'home');
  mkdirSync(home, { recursive: true });
  return { ...process.env, HOME: home } as Record<string, string>;
}

export async function connectStdio(args: string[], cwd: string, name = 'unit-test-client'): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], cwd, env: serverEnv(cwd), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return { client, transport, stderr: () => stderr };
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options?: Parameters<Client['callTool']>[2],
): Promise<TextResult> {
  // The SDK's 60 s request timeout is too short for a shared, loaded machine.
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS, ...options })) as TextResult;
}

export function textOf(result: TextResult): string {
  return result.content.map((c) => c.text).join('\n');
}
