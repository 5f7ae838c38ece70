#!/usr/bin/env node
// DEMO ACP AGENT (no model, no API key) shipped with the Agent Bash sample workspace.
// Every non-empty line you type into its panel becomes one `terminal/create` (`bash -c <line>`), so
// the panel, the approval card, the terminal and the history view can be tried out of the box.
// Dependency-free: newline-delimited JSON-RPC 2.0 over stdin/stdout, as ACP specifies. Diagnostics go
// to stderr; stdout carries only protocol messages.
'use strict';

const AGENT_INFO = { name: 'agent-bash-demo', title: 'Demo agent (runs each line you type)', version: '1.0.0' };
let nextId = 1;
const pending = new Map();
let cwd = process.cwd();
let turn = null;

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

function request(method, params) {
  const id = nextId++;
  send({ id, method, params });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

function say(sessionId, text) {
  send({ method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
}

function toolUpdate(sessionId, update) {
  send({ method: 'session/update', params: { sessionId, update } });
}

function fence(text) {
  const body = text.replace(/\n+$/, '');
  return body ? `\n\`\`\`\n${body}\n\`\`\`\n` : '\n_(no output)_\n';
}

async function runLine(sessionId, line, index, signal) {
  const toolCallId = `demo-${Date.now()}-${index}`;
  say(sessionId, `Running \`${line}\` through Agent Bash…\n`);
  let terminalId;
  try {
    ({ terminalId } = await request('terminal/create', { sessionId, command: 'bash', args: ['-c', line], cwd, outputByteLimit: 64 * 1024 }));
  } catch (err) {
    say(sessionId, `\n**Not run:** ${err.message}\n\n`);
    return;
  }
  toolUpdate(sessionId, { sessionUpdate: 'tool_call', toolCallId, title: line, kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId }] });
  const onAbort = () => void request('terminal/kill', { sessionId, terminalId }).catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await request('terminal/wait_for_exit', { sessionId, terminalId });
    const out = await request('terminal/output', { sessionId, terminalId });
    const ok = exit.exitCode === 0;
    toolUpdate(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: ok ? 'completed' : 'failed' });
    const how = exit.signal ? `killed by ${exit.signal}` : `exit ${exit.exitCode}`;
    say(sessionId, `\n**${ok ? 'Done' : 'Failed'}** (${how})${out.truncated ? ', output cut' : ''}:\n${fence(out.output)}\n`);
  } catch (err) {
    say(sessionId, `\n**Lost the terminal:** ${err.message}\n\n`);
  } finally {
    signal.removeEventListener('abort', onAbort);
    await request('terminal/release', { sessionId, terminalId }).catch(() => undefined);
  }
}

async function prompt(params) {
  const text = (params.prompt || []).filter((b) => b.type === 'text').map((b) => b.text).join('\n');
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  turn = new AbortController();
  const { signal } = turn;
  if (lines.length === 0) say(params.sessionId, 'Type a shell command, for example `ls -la` or `git status`.');
  for (const [i, line] of lines.entries()) {
    if (signal.aborted) break;
    await runLine(params.sessionId, line, i, signal);
  }
  return { stopReason: signal.aborted ? 'cancelled' : 'end_turn' };
}

const handlers = {
  initialize: async () => ({ protocolVersion: 1, agentCapabilities: { loadSession: false }, agentInfo: AGENT_INFO, authMethods: [] }),
  'session/new': async (params) => {
    if (typeof params.cwd === 'string') cwd = params.cwd;
    return { sessionId: `demo-${process.pid}` };
  },
  'session/prompt': prompt,
};

async function onMessage(msg) {
  if (msg.id !== undefined && msg.method === undefined) {
    const waiter = pending.get(msg.id);
    pending.delete(msg.id);
    if (!waiter) return;
    if (msg.error) waiter.reject(new Error(msg.error.message));
    else waiter.resolve(msg.result);
    return;
  }
  if (msg.method === 'session/cancel') {
    turn?.abort();
    return;
  }
  const handler = handlers[msg.method];
  if (msg.id === undefined) return;
  if (!handler) {
    send({ id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
    return;
  }
  try {
    send({ id: msg.id, result: await handler(msg.params || {}) });
  } catch (err) {
    send({ id: msg.id, error: { code: -32603, message: err.message } });
  }
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (!line) continue;
    try {
      void onMessage(JSON.parse(line));
    } catch (err) {
      process.stderr.write(`demo agent: bad message: ${err.message}\n`);
    }
  }
});
process.stdin.on('end', () => process.exit(0));
