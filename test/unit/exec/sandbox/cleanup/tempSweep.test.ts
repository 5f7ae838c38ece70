// The sweep of temp folders whose owner is gone: judged on a real temp root with a real dead
// process, a live one (this one), a reused pid (right pid, wrong start time), unmarked folders and a
// symbolic link; and the folders Agent Bash makes carry the mark.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ownerMark } from '../../../../../src/exec/sandbox/cleanup/orphanSweep';
import { DEFAULT_SANDBOX_SETTINGS } from '../../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../../src/exec/sandbox/sandboxRuntime';
import { makeOwnedTempDir, ownedTempPrefix, sweepStaleTempDirs, tempDirOwner } from '../../../../../src/exec/sandbox/cleanup/tempSweep';

/** The owner mark of a process that ran and is gone. */
async function deadMark(): Promise<string> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  await new Promise<void>((resolve) => child.once('spawn', () => resolve()));
  const mark = ownerMark(child.pid);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
  return mark;
}

function made2(root: string, name: string): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'tmp'), { recursive: true });
  return dir;
}

describe('exec/sandbox: stale temp folder sweep', function () {
  this.timeout(20_000);
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'sweep-root-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('removes folders of a dead owner or a reused pid; keeps a live owner, unmarked folders and links', async function () {
    if (process.platform !== 'linux') this.skip();
    const dead = await deadMark();
    assert.match(dead, /^\d+:\d+$/);
    const [pid, start] = ownerMark().split(':');
    const reused = `${pid}:${Number(start) + 1}`;
    const made = (name: string): string => {
      const dir = path.join(root, name);
      mkdirSync(path.join(dir, 'tmp', 'deep'), { recursive: true });
      writeFileSync(path.join(dir, 'tmp', 'deep', 'f'), 'x');
      return dir;
    };
    const deadSandbox = made(`${ownedTempPrefix('sandbox', dead)}AAAAAA`);
    const deadMcp = made(`${ownedTempPrefix('mcp', dead)}BBBBBB`);
    const reusedPid = made(`${ownedTempPrefix('sandbox', reused)}CCCCCC`);
    const live = makeOwnedTempDir('sandbox', root);
    // No start time known (made where /proc was missing): the pid alone decides.
    const liveNoStart = made(`${ownedTempPrefix('mcp', `${pid}:0`)}EEEEEE`);
    const deadNoStart = made(`${ownedTempPrefix('mcp', `${dead.split(':')[0]}:0`)}FFFFFF`);
    const unmarkedRun = made('agent-bash-run-123-abcd');
    const unmarkedOld = made('agent-bash-sandbox-XyZ123');
    const target = made('elsewhere');
    const link = path.join(root, `${ownedTempPrefix('mcp', dead)}LINK00`);
    symlinkSync(target, link);

    // Another user's folder, dead owner or not, is theirs (root can make one to try).
    const foreign = made(`${ownedTempPrefix('sandbox', dead)}FOREIG`);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(foreign, 65534, 65534);

    const removed = await sweepStaleTempDirs(root);
    assert.deepEqual(removed.sort(), [deadMcp, deadSandbox, reusedPid, deadNoStart, ...(asRoot ? [] : [foreign])].sort());
    if (asRoot) assert.equal(existsSync(foreign), true);
    for (const dir of removed) assert.equal(existsSync(dir), false, dir);
    for (const dir of [live, liveNoStart, unmarkedRun, unmarkedOld, target, link, path.join(target, 'tmp', 'deep', 'f')]) assert.equal(existsSync(dir), true, dir);
    assert.deepEqual(await sweepStaleTempDirs(path.join(root, 'missing')), []);
  });

  it('a CLI start sweeps the temp dir it uses (TMPDIR)', async function () {
    if (process.platform !== 'linux') this.skip();
    const dead = made2(root, `${ownedTempPrefix('sandbox', await deadMark())}DDDDDD`);
    const live = makeOwnedTempDir('mcp', root);
    // The compiled CLI entry (tsc output), as cliRun.test.ts runs it.
    const cli = path.resolve(__dirname, '../../../../../src/cli.js');
    const child = spawn(process.execPath, [cli, 'run', '--yes', '--sandbox', 'off', '--', 'true'], {
      cwd: root,
      env: { ...process.env, TMPDIR: root },
      stdio: 'ignore',
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    assert.equal(code, 0);
    assert.equal(existsSync(dead), false);
    assert.equal(existsSync(live), true);
  });

  it('the folders Agent Bash makes name their owner (pid and start time)', () => {
    const dir = makeOwnedTempDir('mcp', root);
    assert.equal(tempDirOwner(path.basename(dir)), ownerMark());
    assert.equal(tempDirOwner('agent-bash-run-1-2'), undefined);
    const runtime = new SandboxRuntime({ settings: () => DEFAULT_SANDBOX_SETTINGS, workspaceRoots: () => [] });
    try {
      const base = path.dirname(runtime.tmpDir());
      assert.equal(path.dirname(base), os.tmpdir());
      assert.equal(tempDirOwner(path.basename(base)), ownerMark());
      assert.ok(path.basename(base).startsWith(ownedTempPrefix('sandbox')), base);
    } finally {
      runtime.dispose();
    }
  });
});
