// The stdio MCP server answers `initialize` before any warm-up (issue 20 item 4): measured beside a
// bare Node server that answers the same request, in the same run. Clients give a server a few
// seconds (Gemini CLI's health check: 5 s) and leave a late one's tools out of the first turn (Codex).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median, type BenchRow } from './benchKit';

const CLI = path.resolve(__dirname, '../../dist/cli.js');
const ROUNDS = 7;
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;
const BARE_SERVER = `process.stdin.on('data', (d) => { const m = JSON.parse(String(d).split('\\n')[0]); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n'); });`;

/** Milliseconds from spawn to the first byte of the answer to `initialize`. */
function timeInitialize(args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"result"')) {
        resolve(performance.now() - started);
        child.kill('SIGTERM');
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!out.includes('"result"')) reject(new Error(`exited ${code} before answering`));
    });
    child.stdin.write(INITIALIZE);
  });
}

export async function run(): Promise<BenchRow[]> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-bench-mcp-'));
  try {
    const ours: number[] = [];
    const bare: number[] = [];
    // Interleaved, so machine load hits both alike.
    for (let i = 0; i < ROUNDS; i++) {
      bare.push(await timeInitialize(['-e', BARE_SERVER], cwd));
      ours.push(await timeInitialize([CLI, 'mcp', '--cwd', cwd], cwd));
    }
    const ratio = median(ours) / median(bare);
    return [
      { name: 'stdio MCP initialize, bare Node server (median)', value: median(bare).toFixed(1), unit: 'ms', target: '' },
      { name: 'stdio MCP initialize, agent-bash mcp (median)', value: median(ours).toFixed(1), unit: 'ms', target: '' },
      { name: 'stdio MCP initialize, agent-bash / bare Node', value: ratio.toFixed(2), unit: '×', target: '≤ 3', met: ratio <= 3 ? 'yes' : 'no' },
    ];
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}
