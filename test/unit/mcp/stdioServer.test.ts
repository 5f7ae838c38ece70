// The stdio MCP server (`node dist/cli.js mcp`) through the SDK's own stdio client: what a client
// that only spawns processes (Claude Code, Codex, Cline…) gets.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bashInputJsonSchema } from '../../../src/core/input';
import { MCP_USAGE, needsApprovalMessage, unsandboxedRefusedMessage } from '../../../src/cli/mcp';
import { DEFAULT_MCP_RESULT_CHARS } from '../../../src/mcp/resultCap';
import { SANDBOX_OFF_REASON } from '../../../src/core/policy/policyGate';
import { probeSandbox } from '../../../src/exec/sandbox/sandboxProbe';
import { alive, escapeRegExp, processesWithArg, waitFor } from '../exec/helpers';
import { sessionsIsolated } from '../exec/sessionsIsolated';
import { sessionReplacedNotice } from '../../../src/exec/persistentShell';

const CLI = path.resolve(__dirname, '../../../../dist/cli.js');
/** Generous bounds: these tests share two cores with other suites. */
const CALL_TIMEOUT_MS = 180_000;
const START_MS = 60_000;

let markers = 0;
/**
 * A `sleep` whose command line no other process has. Commands run in a PID namespace (the sandbox),
 * so a pid they print means nothing here; the command line does.
 */
const uniqueSleep = (): string => `sleep 100.${process.pid}${++markers}`;
const isRunning = (line: string): boolean => processesWithArg(line).length > 0;

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

async function connect(args: string[], cwd: string, name = 'unit-test-client'): Promise<{ client: Client; transport: StdioClientTransport }> {
  // A home of its own: the machine's login profile (pyenv init, say) does not speak into the results.
  const home = path.join(cwd, 'home');
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, HOME: home } as Record<string, string>;
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], cwd, env, stderr: 'pipe' });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return { client, transport };
}

async function call(client: Client, name: string, args: Record<string, unknown>, options?: Parameters<Client['callTool']>[2]): Promise<TextResult> {
  // The SDK's 60 s request timeout is too short for a shared, loaded machine.
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS, ...options })) as TextResult;
}

function textOf(result: TextResult): string {
  return result.content.map((c) => c.text).join('\n');
}

describe('mcp: stdio server', function () {
  this.timeout(300_000);
  let tmp: string;
  let canary: string;
  let client: Client;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-'));
    canary = path.join(tmp, 'canary');
    writeFileSync(canary, 'alive');
    const rules = path.join(tmp, 'rules.json');
    const allowed = ['printf *', 'exit *', 'echo *', 'sleep *', 'sh *', 'seq *', 'exec *'].map((match) => ({ match, approval: 'allow', allowRedirects: true }));
    writeFileSync(rules, JSON.stringify([...allowed, { match: 'rm *', approval: 'deny' }]));
    ({ client } = await connect(['--rules', rules, '--cwd', tmp], tmp));
  });

  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when before() failed ahead of connecting
    await client?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('lists its tools, bash with the LM tool schema', async () => {
    const { tools } = await client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
    assert.deepEqual(tools.map((t) => t.name).sort(), ['bash', 'bash_kill', 'bash_output', 'read_artifact']);
    assert.deepEqual(tools.find((t) => t.name === 'bash')?.inputSchema, bashInputJsonSchema({ asyncEnabled: true }));
  });

  it("runs printf 'a\\nb\\n'; exit 3 and reports exit 3 as an error result", async () => {
    const r = await call(client, 'bash', { command: "printf 'a\\nb\\n'; exit 3" });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^a\nb\n\nWall time: \d+\.\d\d seconds\n\nCommand exited with code 3$/);
    // The exit ended the session's shell (where commands run at its top level): the next call runs
    // in a fresh one and says so, once. In a sandboxed session it ended only the command's subshell.
    const next = await call(client, 'bash', { command: 'echo after' });
    const notice = sessionsIsolated() ? '' : `\\[${escapeRegExp(sessionReplacedNotice('exited'))}\\]\\n`;
    assert.match(textOf(next), new RegExp(`^${notice}after\\n\\nWall time: `));
    const again = await call(client, 'bash', { command: 'echo again' });
    assert.match(textOf(again), /^again\n\nWall time: /);
  });

  it('refuses a denied command and runs nothing', async () => {
    const r = await call(client, 'bash', { command: `rm -f ${canary}` });
    assert.equal(r.isError, true);
    assert.equal(textOf(r), `Command denied: \`rm -f ${canary}\` in segment 1 matched deny rule \`rm *\``);
    assert.equal(readFileSync(canary, 'utf8'), 'alive');
  });

  it('refuses a prompt-level command (no dialog over stdio) and says why', async () => {
    const marker = path.join(tmp, 'touched');
    const r = await call(client, 'bash', { command: `touch ${marker}` });
    assert.equal(r.isError, true);
    assert.equal(textOf(r), needsApprovalMessage(`\`touch ${marker}\` in segment 1 matched no rule`));
    assert.equal(existsSync(marker), false);
  });

  it('answers bad arguments with the pipeline validation message', async () => {
    const r = await call(client, 'bash', { command: 'echo hi', timeout: 'soon' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^Validation failed for tool "bash":\n {2}- timeout: /);
  });

  it('streams output as progress notifications', async () => {
    const messages: string[] = [];
    const r = await call(client, 'bash', { command: 'echo one; sleep 1; echo two' }, { onprogress: (p) => messages.push(p.message ?? '') });
    assert.equal(r.isError, false);
    assert.match(textOf(r), /^one\ntwo\n/);
    assert.ok(messages.includes('one\n'), JSON.stringify(messages));
  });

  it('cancellation (notifications/cancelled) kills the process', async () => {
    const line = uniqueSleep();
    const controller = new AbortController();
    const pending = call(client, 'bash', { command: `sh -c '${line}; true'` }, { signal: controller.signal });
    pending.catch(() => undefined);
    assert.ok(await waitFor(() => isRunning(line), START_MS), 'the command never started');
    controller.abort();
    await assert.rejects(pending);
    assert.ok(await waitFor(() => !isRunning(line), START_MS), `${line} survived the cancel`);
  });

  it('reads a long output back through read_artifact by byte range', async () => {
    const r = await call(client, 'bash', { command: 'seq 1 30000' });
    const id = /Read artifact:\/\/(\d+) for full output/.exec(textOf(r))?.[1];
    assert.ok(id, textOf(r).slice(-300));
    const expected = Array.from({ length: 30000 }, (_, i) => `${i + 1}\n`).join('');
    const total = Buffer.byteLength(expected);
    const head = await call(client, 'read_artifact', { id, limit: 10 });
    assert.equal(textOf(head), `1\n2\n3\n4\n5\n[artifact://${id}: bytes 0-10 of ${total}; continue with offset 10]`);
    const tail = await call(client, 'read_artifact', { id, offset: total - 6 });
    assert.equal(textOf(tail), `30000\n[artifact://${id}: bytes ${total - 6}-${total} of ${total}, end of file]`);
    const foreign = await call(client, 'read_artifact', { id: '999' });
    assert.equal(foreign.isError, true);
    assert.equal(textOf(foreign), 'No artifact 999 in this MCP session (only outputs of this session\'s commands can be read).');
  });

  it('runs a background job, reads it with bash_output and kills it with bash_kill', async () => {
    const done = await call(client, 'bash', { command: 'echo bg-done', async: true });
    const doneId = /job-\d+/.exec(textOf(done))?.[0];
    assert.ok(doneId, textOf(done));
    assert.match(textOf(done), new RegExp(`Read its output with bash_output \\{"job_id": "${doneId}"\\}`));
    const out = await call(client, 'bash_output', { job_id: doneId, wait_seconds: 30 });
    assert.equal(out.isError, false);
    assert.match(textOf(out), /^bg-done\n/);

    const line = uniqueSleep();
    const started = await call(client, 'bash', { command: `sh -c '${line}; true'`, async: true });
    const jobId = /job-\d+/.exec(textOf(started))?.[0] as string;
    assert.ok(await waitFor(() => isRunning(line), START_MS));
    const running = await call(client, 'bash_output', { job_id: jobId });
    assert.match(textOf(running), new RegExp(`^Job ${jobId} is still running \\(\\d+ s so far\\)\\.`));
    const killed = await call(client, 'bash_kill', { job_id: jobId });
    assert.equal(textOf(killed), `Job ${jobId} killed.`);
    assert.ok(await waitFor(() => !isRunning(line), START_MS), `${line} survived bash_kill`);
    const after = await call(client, 'bash_output', { job_id: jobId });
    assert.equal(after.isError, true);
    assert.match(textOf(after), new RegExp(`Job ${jobId} was killed\\.$`));
    const unknown = await call(client, 'bash_kill', { job_id: 'job-999' });
    assert.equal(unknown.isError, true);
    assert.equal(textOf(unknown), 'No background job job-999 in this MCP session.');
  });

  it('closing the client leaves no process: server, shells and jobs', async () => {
    const own = await connect(['--yes', '--cwd', tmp], tmp, 'closing-client');
    const job = uniqueSleep();
    await call(own.client, 'bash', { command: `sh -c '${job}; true'`, async: true });
    const fg = uniqueSleep();
    const pending = call(own.client, 'bash', { command: `sh -c '${fg}; true'` });
    pending.catch(() => undefined);
    assert.ok(await waitFor(() => isRunning(job) && isRunning(fg), START_MS));
    const serverPid = own.transport.pid as number;
    await own.client.close();
    for (const line of [job, fg]) assert.ok(await waitFor(() => !isRunning(line), START_MS), `${line} survived the close`);
    assert.ok(await waitFor(() => !alive(serverPid), START_MS), `the server (pid ${serverPid}) survived the close`);
  });

  it('runs commands in the OS sandbox: an approved write outside --cwd is refused and named, the workspace is writable', async function () {
    if (!probeSandbox().sandbox) this.skip();
    const outside = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-mcp-outside-'));
    // --yes approves the prompt the policy raises for a write outside the workspace; the sandbox still refuses it.
    const own = await connect(['--yes', '--cwd', tmp], tmp, 'sandbox-client');
    try {
      const target = path.join(outside, 'x');
      const refused = await call(own.client, 'bash', { command: `echo hi > ${target}` });
      assert.equal(refused.isError, true);
      assert.equal(existsSync(target), false);
      assert.match(textOf(refused), new RegExp(`The OS sandbox refused writing ${escapeRegExp(target)} `));
      const inside = await call(own.client, 'bash', { command: 'echo hi > inside.txt' });
      assert.equal(inside.isError, false);
      assert.equal(readFileSync(path.join(tmp, 'inside.txt'), 'utf8'), 'hi\n');
    } finally {
      await own.client.close();
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('takes the inputs agents send: `description`, `run_in_background`, and read_artifact ids as `artifact://N`', async () => {
    const described = await call(client, 'bash', { command: 'echo described', description: 'Print a word' });
    assert.equal(described.isError, false);
    assert.match(textOf(described), /^described\n/);
    const bg = await call(client, 'bash', { command: 'echo from-background', run_in_background: true });
    const jobId = /job-\d+/.exec(textOf(bg))?.[0];
    assert.ok(jobId, textOf(bg));
    const out = await call(client, 'bash_output', { job_id: jobId, wait_seconds: 30 });
    assert.match(textOf(out), /^from-background\n/);
    const long = await call(client, 'bash', { command: 'seq 1 30000' });
    const id = /Read artifact:\/\/(\d+) for full output/.exec(textOf(long))?.[1];
    assert.ok(id, textOf(long).slice(-300));
    const read = await call(client, 'read_artifact', { id: `artifact://${id}`, limit: 4 });
    assert.equal(read.isError, false);
    assert.match(textOf(read), new RegExp(`^1\n2\n\\[artifact://${id}: bytes 0-4 of \\d+; continue with offset 4\\]$`));
  });

  it('keeps a 2 MB result under the client cap, with its tail and the artifact footer', async () => {
    // 2 MB of output: 2,048 lines of a number and a thousand `x` (cut to the start and end of 768 bytes a line, past the budget).
    const r = await call(client, 'bash', { command: `seq -f '%04g ${'x'.repeat(1000)}' 1 2048` });
    const text = textOf(r);
    assert.ok(text.length <= DEFAULT_MCP_RESULT_CHARS, `${text.length} characters`);
    assert.match(text, /^0001 x/);
    assert.match(text, /\n2048 x+…x+\n/);
    assert.match(text, /Read artifact:\/\/\d+ for full output/);
  });

  it('refuses `"sandbox": "off"` under --yes unless --allow-unsandboxed is given too', async () => {
    const marker = path.join(tmp, 'unsandboxed-ran');
    const yes = await connect(['--yes', '--cwd', tmp], tmp, 'yes-client');
    try {
      const refused = await call(yes.client, 'bash', { command: `echo x > ${marker}`, sandbox: 'off' });
      assert.equal(refused.isError, true);
      assert.equal(existsSync(marker), false);
      assert.match(textOf(refused), new RegExp(escapeRegExp(unsandboxedRefusedMessage(SANDBOX_OFF_REASON).split(SANDBOX_OFF_REASON)[1])));
    } finally {
      await yes.client.close();
    }
    const both = await connect(['--yes', '--allow-unsandboxed', '--cwd', tmp], tmp, 'unsandboxed-client');
    try {
      const ran = await call(both.client, 'bash', { command: `echo x > ${marker}`, sandbox: 'off' });
      assert.equal(ran.isError, false, textOf(ran));
      assert.equal(readFileSync(marker, 'utf8'), 'x\n');
    } finally {
      await both.client.close();
    }
  });

  it('--sandbox takes auto, on or off: anything else exits 2 naming the value', () => {
    const r = spawnSync(process.execPath, [CLI, 'mcp', '--sandbox', 'maybe'], { encoding: 'utf8', input: '' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, `agent-bash mcp: --sandbox maybe is not one of auto, on, off\n${MCP_USAGE}\n`);
  });
});
