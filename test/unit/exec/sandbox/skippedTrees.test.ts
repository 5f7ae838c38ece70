// A repository at any depth inside a folder the search walks past for hard links (node_modules,
// target, .venv, .cache…) is found: mounted read-only before a command (within a budget), and one a
// command makes there is quarantined after it like any new repository. The host's own `git status`
// is the judge: a planted `core.fsmonitor` would touch a canary outside every writable folder.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { planProtected } from '../../../../src/exec/sandbox/mounts/protectedMounts';
import { BLOCKED_SUFFIX } from '../../../../src/exec/sandbox/mounts/newRepoQuarantine';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { FakeSink } from '../helpers';

describe('exec/sandbox: repositories deep inside skipped folders', function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;
  let home: string;
  let canary: string;

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-skipped-'));
    ws = path.join(root, 'ws');
    home = path.join(root, 'home');
    canary = path.join(root, 'outside', 'canary');
    mkdirSync(ws);
    mkdirSync(home);
    mkdirSync(path.dirname(canary));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('the plan finds target/a/b/.git and node_modules/p/q/r/.git; past the budget before a command only the entries\' own, the look after one all', () => {
    for (const rel of ['target/a/b/.git', 'node_modules/p/q/r/.git', 'node_modules/own/.git']) mkdirSync(path.join(ws, rel), { recursive: true });
    const all = ['node_modules/own/.git', 'node_modules/p/q/r/.git', 'target/a/b/.git'].map((r) => path.join(ws, r));
    assert.deepEqual(planProtected({ roots: [ws], workspaceRoots: [ws] }).gitPaths.sort(), all);
    assert.deepEqual(planProtected({ roots: [ws], workspaceRoots: [ws], skippedBudget: 0 }).gitPaths, [path.join(ws, 'node_modules/own/.git')]);
    assert.deepEqual(planProtected({ roots: [ws], workspaceRoots: [ws], skippedBudget: 0, searchAll: true }).gitPaths.sort(), all);
    assert.deepEqual(planProtected({ roots: [ws], workspaceRoots: [ws], searchAll: true }).readOnlyBecause, []);
  });

  describe('real commands', function () {
    const settings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };
    let runtime: SandboxRuntime;
    let executor: LocalShellExecutor;

    before(function () {
      if (!probeSandbox().sandbox) this.skip();
    });
    beforeEach(() => {
      runtime = new SandboxRuntime({ settings: () => settings, workspaceRoots: () => [ws], home, cacheStore: path.join(root, 'store') });
      executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    });
    afterEach(async () => {
      await executor.dispose();
      runtime.dispose();
    });

    async function run(command: string): Promise<{ output: string; changed: string[] }> {
      const watch = runtime.watch();
      const sink = new FakeSink();
      await executor.run({ command, cwd: ws, timeoutMs: 100_000, sink });
      return { output: sink.text(), changed: watch.finish(sink.text()).protectedChanged };
    }

    for (const rel of ['target/a/b', 'node_modules/p/q/r', '.venv/lib/x']) {
      it(`a repository a command makes at ${rel} with a fsmonitor is quarantined, and the host git never runs it`, async () => {
        const r = await run(`git init -q ${rel} && git -C ${rel} config core.fsmonitor "touch ${canary}; false" && echo made`);
        assert.equal(r.output, 'made\n');
        const config = path.join(ws, rel, '.git', 'config');
        assert.deepEqual(r.changed, [`${config} sets core.fsmonitor (moved aside to ${config}${BLOCKED_SUFFIX})`]);
        spawnSync('git', ['status', '--short'], { cwd: path.join(ws, rel), stdio: 'ignore', env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
        assert.equal(existsSync(canary), false, 'the host git ran the sandbox-written fsmonitor');
        // From the next command on it is read-only like every `.git`.
        const r2 = await run(`echo x >> ${rel}/.git/config; echo rc=$?`);
        assert.match(r2.output, /Read-only file system\nrc=1\n$/);
        assert.equal(existsSync(config), false);
        assert.match(readFileSync(`${config}${BLOCKED_SUFFIX}`, 'utf8'), /fsmonitor/);
      });
    }
  });
});
