// Reliability of `agent-bash run`: bad input is answered plainly (exit 2, a message naming the
// argument, nothing run), the process ends right after printing its result, and artifact folders
// are kept within bounds and never left empty.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI_MESSAGES } from '../../../src/cli/cliArgs';
import { RUN_USAGE, runMain } from '../../../src/cli/run';
import { pruneRunArtifacts, RUN_ARTIFACT_PREFIX } from '../../../src/cli/runArtifacts';
import { getShellConfig } from '../../../src/exec/shellConfig';
import { escapeRegExp } from '../exec/helpers';

const CLI = path.resolve(__dirname, '../../../../dist/cli.js');

/**
 * The bars (a usage error within 0.2 s, exit within 0.1 s of the result's last byte) are
 * measured in `npm run bench` (bench/cliExit.bench.ts). Here the bounds only tell a hang from a busy
 * 2-core machine: a usage error that waits on anything takes seconds, and an exit held up by an armed
 * timer (the 1 s kill grace, a keep-alive) shows as a second or more beyond what Node needs to exit.
 */
const USAGE_BOUND_MS = 5000;
const EXIT_GAP_BOUND_MS = 700;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** From the last stdout byte to the process's exit. */
  exitGapMs: number;
}

function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'run', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    let lastByte = performance.now();
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      lastByte = performance.now();
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    // 'exit', not 'close': the gap is the process's, not the pipes'.
    child.once('exit', (code) => {
      const exitGapMs = performance.now() - lastByte;
      child.once('close', () => resolve({ code, stdout, stderr, exitGapMs }));
    });
  });
}

/** The same gap for a Node process that only writes one byte: what exiting costs on this machine now. */
function nodeExitGap(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("x")'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let lastByte = performance.now();
    child.stdout.on('data', () => (lastByte = performance.now()));
    child.once('exit', () => resolve(performance.now() - lastByte));
  });
}

/** `runMain` in this process, stderr captured: the CLI's own time, without Node's start-up. */
async function timedRunMain(args: string[]): Promise<{ code: number; stderr: string; ms: number }> {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept only to be put back on process.stderr as it was, never called unbound
  const write = process.stderr.write;
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  }) as typeof process.stderr.write;
  const started = performance.now();
  try {
    const code = await runMain(args);
    return { code, stderr, ms: performance.now() - started };
  } finally {
    process.stderr.write = write;
  }
}

describe('cli: run reliability', function () {
  this.timeout(120_000);
  let dir: string;
  let canary: string;

  before(() => {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-clirel-'));
    fs.writeFileSync(path.join(dir, 'afile'), 'x');
  });
  beforeEach(() => {
    canary = path.join(dir, 'canary');
    fs.rmSync(canary, { force: true });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('bad input: exit 2, an exact message naming the argument, nothing run', () => {
    const longPath = `/${'a'.repeat(200)}/`.repeat(25);
    const cases: Array<[string, () => string[], () => string]> = [
      ['--cwd below a file', () => ['--cwd', 'afile/sub', '--yes', '--', `touch ${canary}`], () => CLI_MESSAGES.badCwd('afile/sub')],
      ['--cwd of 5 KB', () => ['--cwd', longPath, '--yes', '--', `touch ${canary}`], () => CLI_MESSAGES.pathTooLong('--cwd', longPath)],
      ['a command without --', () => ['touch', canary], () => CLI_MESSAGES.commandWithoutSeparator('touch')],
      ['--timeout of a space', () => ['--timeout', ' ', '--yes', '--', `touch ${canary}`], () => CLI_MESSAGES.notSeconds('--timeout', ' ')],
      ['--timeout abc', () => ['--timeout', 'abc', '--yes', '--', `touch ${canary}`], () => CLI_MESSAGES.notSeconds('--timeout', 'abc')],
      ['--timeout -1', () => ['--timeout=-1', '--yes', '--', `touch ${canary}`], () => CLI_MESSAGES.notSeconds('--timeout', '-1')],
      ['--timeout 1e3', () => ['--timeout', '1e3', '--yes', '--', `touch ${canary}`], () => CLI_MESSAGES.notSeconds('--timeout', '1e3')],
      ['--timeout without a value', () => ['--yes', '--timeout'], () => CLI_MESSAGES.missingValue('--timeout')],
    ];
    for (const [name, args, message] of cases) {
      it(name, async () => {
        const r = await cli(args(), dir);
        assert.equal(r.code, 2);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr, `agent-bash run: ${message()}\n${RUN_USAGE}\n`);
        assert.equal(fs.existsSync(canary), false);
        // The CLI's own time; Node's start-up on a loaded machine is not the CLI's.
        const own = await timedRunMain(args().map((a) => (a === 'afile/sub' ? path.join(dir, a) : a)));
        assert.equal(own.code, 2);
        assert.ok(own.ms < USAGE_BOUND_MS, `took ${own.ms.toFixed(1)} ms`);
        assert.equal(fs.existsSync(canary), false);
      });
    }

    it('names the messages exactly', () => {
      assert.equal(CLI_MESSAGES.badCwd('afile/sub'), '--cwd afile/sub is not a directory');
      assert.equal(CLI_MESSAGES.pathTooLong('--cwd', 'x'.repeat(5000)), '--cwd is too long (5000 bytes; a path may have 4095 bytes and each name in it 255)');
      assert.equal(CLI_MESSAGES.commandWithoutSeparator('touch'), 'the command must follow `--` (found touch where an option was expected)');
      assert.equal(CLI_MESSAGES.notSeconds('--timeout', ' '), '--timeout " " is not a number of seconds (use digits, e.g. 30 or 2.5; 0 means no limit)');
    });

    it('accepts a rules file that starts with a UTF-8 BOM', async () => {
      const rules = path.join(dir, 'bom.json');
      fs.writeFileSync(rules, `\uFEFF${JSON.stringify([{ match: 'touch *', approval: 'allow' }])}`);
      // No --yes: only the rule can allow the command.
      const r = await cli(['--rules', rules, '--', `touch ${canary}`], dir);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(fs.existsSync(canary), true);
    });

    it('runs a command that starts with -- as bash would', async () => {
      const script = path.join(dir, 'dashdash.sh');
      fs.writeFileSync(script, '--yes\n');
      const judge = spawnSync('bash', [script], { encoding: 'utf8' });
      const r = await cli(['--yes', '--', '--yes'], dir);
      assert.equal(r.code, judge.status);
      assert.equal(r.code, 127);
      // The shell the CLI resolves (from SHELL or PATH: /bin/bash on one machine, /usr/bin/bash on another).
      const shell = getShellConfig().shell;
      assert.match(r.stdout, new RegExp(`^${escapeRegExp(shell)}: line \\d+: --yes: command not found\n`));
      assert.doesNotMatch(r.stdout, /invalid option/);
    });

    it('counts `seq 1 N` as N lines in the truncation notice', async () => {
      const n = 100_000;
      const r = await cli(['--yes', '--', `seq 1 ${n}`], dir, { TMPDIR: dir });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`\\n${n}\\n`));
      assert.match(r.stdout, new RegExp(`\\[Showing lines 1-\\d+ and \\d+-${n} of ${n}; [\\d,]+ middle lines \\([\\d.]+KB\\) elided\\. Read artifact://1 for full output\\]\\n$`));
      const artifact = /^agent-bash run: full output: (.*)\n$/.exec(r.stderr)?.[1] ?? '';
      assert.equal(fs.readFileSync(artifact, 'utf8').split('\n').length - 1, n);
      fs.rmSync(path.dirname(artifact), { recursive: true, force: true });
    });
  });

  describe('exit right after the result', () => {
    // A hang (an armed timer, a live handle) shows as a second or more; a loaded machine adds what
    // any Node process needs to exit, so the bound is 700 ms beyond that baseline, best of two.
    async function bestGap(args: string[]): Promise<{ gap: number; run: CliRun }> {
      let best: CliRun | undefined;
      for (let i = 0; i < 2; i += 1) {
        const r = await cli(args, dir);
        if (!best || r.exitGapMs < best.exitGapMs) best = r;
      }
      return { gap: (best as CliRun).exitGapMs, run: best as CliRun };
    }

    it('exits right after printing (no armed timer holds it), also after a SIGKILL escalation', async () => {
      const baseline = Math.min(await nodeExitGap(), await nodeExitGap(), await nodeExitGap());
      const plain = await bestGap(['--yes', '--', 'echo hi']);
      assert.match(plain.run.stdout, /^hi\n/);
      assert.ok(plain.gap < baseline + EXIT_GAP_BOUND_MS, `plain: ${plain.gap.toFixed(1)} ms (node alone: ${baseline.toFixed(1)} ms)`);
      // SIGTERM is ignored, so the kill waits its grace and escalates to SIGKILL.
      const escalated = await bestGap(['--yes', '--timeout', '1', '--', "trap '' TERM; sleep 30"]);
      assert.equal(escalated.run.code, 1);
      assert.match(escalated.run.stdout, /^\[Command timed out after 1 seconds\]\n/);
      assert.ok(escalated.gap < baseline + EXIT_GAP_BOUND_MS, `escalated: ${escalated.gap.toFixed(1)} ms (node alone: ${baseline.toFixed(1)} ms)`);
    });
  });

  describe('artifact folders', () => {
    let tmp: string;
    beforeEach(() => {
      tmp = fs.mkdtempSync(path.join(dir, 'tmp-'));
    });
    const runFolders = (): string[] => fs.readdirSync(tmp).filter((n) => n.startsWith(RUN_ARTIFACT_PREFIX)).sort();

    it('makes no folder for a run without an artifact, nor for a killed run', async () => {
      assert.equal((await cli(['--yes', '--', 'echo hi'], dir, { TMPDIR: tmp })).code, 0);
      assert.deepEqual(runFolders(), []);
      // SIGKILL: the CLI cleans nothing up; its shell is ended here by pid.
      const pidFile = path.join(tmp, 'shell.pid');
      const child = spawn(process.execPath, [CLI, 'run', '--yes', '--', `echo $$ > ${pidFile}; exec sleep 100`], { cwd: dir, stdio: 'ignore', env: { ...process.env, TMPDIR: tmp } });
      const deadline = Date.now() + 60_000;
      while (!fs.existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      process.kill(pid, 'SIGKILL');
      assert.deepEqual(runFolders(), []);
    });

    it('prunes at start: empty leftovers, folders older than 7 days; keeps recent ones', async () => {
      const make = (name: string, ageMs: number, content?: string): string => {
        const folder = path.join(tmp, `${RUN_ARTIFACT_PREFIX}${name}`);
        fs.mkdirSync(folder);
        if (content !== undefined) fs.writeFileSync(path.join(folder, '1.bash.log'), content);
        const when = new Date(Date.now() - ageMs);
        if (content !== undefined) fs.utimesSync(path.join(folder, '1.bash.log'), when, when);
        fs.utimesSync(folder, when, when);
        return folder;
      };
      make('killed-empty', 5 * 60_000);
      make('just-made', 0);
      make('old', 8 * 24 * 3600_000, 'old output');
      make('recent', 3600_000, 'recent output');
      const unrelated = path.join(tmp, 'someone-else');
      fs.mkdirSync(unrelated);
      assert.equal((await cli(['--yes', '--', 'echo hi'], dir, { TMPDIR: tmp })).code, 0);
      assert.deepEqual(runFolders(), [`${RUN_ARTIFACT_PREFIX}just-made`, `${RUN_ARTIFACT_PREFIX}recent`]);
      assert.equal(fs.existsSync(unrelated), true);
    });

    it('removes the oldest folders first once all of them exceed the size bound', async () => {
      const now = Date.now();
      for (const [name, age] of [['a', 3], ['b', 2], ['c', 1]] as const) {
        const folder = path.join(tmp, `${RUN_ARTIFACT_PREFIX}${name}`);
        fs.mkdirSync(folder);
        fs.writeFileSync(path.join(folder, '1.bash.log'), 'x'.repeat(1000));
        const when = new Date(now - age * 3600_000);
        fs.utimesSync(path.join(folder, '1.bash.log'), when, when);
        fs.utimesSync(folder, when, when);
      }
      const removed = await pruneRunArtifacts(tmp, path.join(tmp, 'none'), { maxAgeMs: 7 * 24 * 3600_000, maxBytes: 2000, emptyGraceMs: 60_000 }, now);
      assert.deepEqual(removed.map((d) => path.basename(d)), [`${RUN_ARTIFACT_PREFIX}a`]);
      assert.deepEqual(runFolders(), [`${RUN_ARTIFACT_PREFIX}b`, `${RUN_ARTIFACT_PREFIX}c`]);
    });
  });
});
