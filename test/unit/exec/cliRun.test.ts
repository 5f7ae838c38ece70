import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive, processBaseline, processesWithArg, waitFor } from './helpers';

// The compiled CLI entry (tsc output); `node dist/cli.js` is the same code bundled.
const CLI = path.resolve(__dirname, '../../../src/cli.js');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function startCli(args: string[], cwd: string): { done: Promise<CliRun>; pid: number; kill: (s: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, [CLI, 'run', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<CliRun>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { done, pid: child.pid as number, kill: (s) => child.kill(s) };
}

const cli = (args: string[], cwd: string): Promise<CliRun> => startCli(args, cwd).done;

describe('exec: cli run', function () {
  // A CLI start with a login shell takes over 10 s on a loaded shared machine.
  this.timeout(90_000);
  let tmp: string;

  let baseline: ReturnType<typeof processBaseline>;

  before(() => {
    baseline = processBaseline();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-cli-'));
  });
  after(async () => {
    rmSync(tmp, { recursive: true, force: true });
    assert.ok(await waitFor(() => baseline.leftSince().length === 0, 3000), JSON.stringify(baseline.leftSince()));
  });

  it('rejects bad arguments with exit 2', async () => {
    const r = await cli([], tmp);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^agent-bash run: missing `--` before the command\nusage: agent-bash run /);
    const t = await cli(['--timeout', 'soon', '--', 'true'], tmp);
    assert.equal(t.code, 2);
    assert.match(t.stderr, /--timeout soon is not a number of seconds/);
  });

  it('--max-line-bytes: digits only, and it cuts the lines of output too long to show whole to their start and end', async () => {
    const bad = await cli(['--max-line-bytes', '-1', '--', 'true'], tmp);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^agent-bash run: --max-line-bytes -1 is not a number of bytes \(digits; 0 means no limit\)\nusage: agent-bash run .*\[--max-line-bytes N\]/);
    const r = await cli(['--yes', '--max-line-bytes', '20', '--', "seq -f '%06g abcdefghijklmnopqrstuvwxyz' 1 5000"], tmp);
    assert.equal(r.code, 0, r.stderr);
    // 20 bytes: 9 of the start, …, 8 of the end.
    assert.match(r.stdout, /\n005000 ab…stuvwxyz\n/);
    assert.match(r.stdout, /Long lines cut to 20 bytes, start and end kept/);
  });

  it('refuses a prompt decision without --yes, with a clear message', async () => {
    const marker = path.join(tmp, 'ran');
    const r = await cli(['--', `touch ${marker}`], tmp);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `agent-bash run: refused: this command needs approval (\`touch ${marker}\` in segment 1 matched no rule); rerun with --yes to approve it\n`);
    assert.equal(r.stdout.split('\n')[0], `Command refused: it needs approval (\`touch ${marker}\` in segment 1 matched no rule), and \`agent-bash run\` cannot ask a person; nothing ran. Rerun with --yes to approve it.`);
    assert.equal(existsSync(marker), false);
  });

  it('runs with --yes and exits with the command status', async () => {
    const r = await cli(['--yes', '--', 'echo hi; exit 3'], tmp);
    assert.equal(r.code, 3);
    assert.match(r.stdout, /^hi\n/);
    assert.match(r.stdout, /Command exited with code 3\n$/);
  });

  it('allows by rules file, honours --cwd', async () => {
    const rules = path.join(tmp, 'rules.json');
    writeFileSync(rules, JSON.stringify([{ match: 'pwd', approval: 'allow' }]));
    const r = await cli(['--rules', rules, '--cwd', '/', '--', 'pwd'], tmp);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^\/\n/);
  });

  it('exits 137 for SIGKILL and 1 (not 124) for a timeout', async () => {
    const killed = await cli(['--yes', '--', "sh -c 'kill -9 $$'"], tmp);
    assert.equal(killed.code, 137);
    const timedOut = await cli(['--yes', '--timeout', '1', '--', 'sleep 5'], tmp);
    assert.equal(timedOut.code, 1);
    assert.match(timedOut.stdout, /^\[Command timed out after 1 seconds\]\n/);
  });

  it('runs in a terminal with --pty', async () => {
    const r = await cli(['--yes', '--pty', '--', '[ -t 0 ] && [ -t 1 ] && echo "tty $TERM"'], tmp);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^tty xterm-256color\n/);
  });

  it('leaves no background child behind on a normal exit', async () => {
    // Inside the PID namespace `$!` is not a host pid: the unique argument finds the process.
    const marker = `100.${process.pid}1`;
    const r = await cli(['--yes', '--', `sleep ${marker} & echo started`], tmp);
    assert.equal(r.code, 0);
    assert.deepEqual(processesWithArg(`sleep ${marker}`), []);
  });

  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    it(`on ${signal} kills everything it started and exits ${code}`, async () => {
      const marker = `100.${process.pid}${code}`;
      const run = startCli(['--yes', '--', `sleep ${marker} & sleep ${marker}`], tmp);
      // CLI start-up (tree-sitter) is slow on a loaded machine.
      assert.ok(await waitFor(() => processesWithArg(`sleep ${marker}`).length === 2, 60_000));
      const pids = processesWithArg(`sleep ${marker}`);
      const started = Date.now();
      run.kill(signal);
      const r = await run.done;
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
      assert.equal(r.code, code);
      assert.match(r.stdout, /^\[Command cancelled\]\n/);
      for (const pid of [...pids, run.pid]) assert.equal(alive(pid), false, `pid ${pid} survived`);
    });
  }
});
