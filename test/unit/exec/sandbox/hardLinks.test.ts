// A protected file with a hard link the plan did not find (in node_modules, .venv, target… which the
// search walks past, or anywhere else) does not stay writable through it: the plan replaces the file
// by a copy of its own, so the other link names an inode no host program reads; where it cannot, the
// plan is read-only. And the look after a command compares protected files by content (a rewrite of
// the same size with its time set back is a change), moving aside what changed. The host's own
// `git status` is the judge: a planted `core.fsmonitor` would touch a canary outside every writable folder.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { planProtected } from '../../../../src/exec/sandbox/mounts/protectedMounts';
import { compareSnapshots, snapshotProtected } from '../../../../src/exec/sandbox/mounts/protectedCheck';
import { DETACH_MAX_BYTES } from '../../../../src/exec/sandbox/mounts/folderFd';
import { BLOCKED_SUFFIX } from '../../../../src/exec/sandbox/mounts/newRepoQuarantine';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { FakeSink } from '../helpers';

describe('exec/sandbox: hard links to protected files and changes by content', function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;
  let home: string;
  let canary: string;

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-links-'));
    ws = path.join(root, 'ws');
    home = path.join(root, 'home');
    canary = path.join(root, 'outside', 'canary');
    mkdirSync(ws);
    mkdirSync(home);
    mkdirSync(path.dirname(canary));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** Same-size content for `file` that sets core.fsmonitor to touch the canary (padded with a comment). */
  function evilConfigOfSize(size: number): string {
    const head = `[core]\n\tfsmonitor = touch ${canary}; false\n#`;
    assert.ok(head.length <= size, `a ${size}-byte config is too small for the payload`);
    return head + '#'.repeat(size - head.length);
  }

  /** Rewrites `file` with `text` (as many bytes) and sets its times back exactly (`touch -r`, to the nanosecond). */
  function sameSizeSameTime(file: string, text: string): void {
    const ref = path.join(root, 'ref');
    execFileSync('touch', ['-r', file, ref]);
    const was = lstatSync(file, { bigint: true });
    assert.equal(BigInt(Buffer.byteLength(text)), was.size);
    writeFileSync(file, text);
    execFileSync('touch', ['-r', ref, file]);
    const now = lstatSync(file, { bigint: true });
    assert.deepEqual([now.ino, now.size, now.mtimeNs], [was.ino, was.size, was.mtimeNs]);
  }

  describe('the plan', () => {
    for (const skipped of ['node_modules', '.venv', 'target/deep/er']) {
      it(`a protected file with a link in ${skipped} (never searched) is replaced by a copy of its own`, () => {
        mkdirSync(path.join(ws, '.vscode'));
        const settings = path.join(ws, '.vscode', 'settings.json');
        writeFileSync(settings, '{"a": 1}\n', { mode: 0o640 });
        mkdirSync(path.join(ws, skipped), { recursive: true });
        const other = path.join(ws, skipped, 'x');
        linkSync(settings, other);
        const was = lstatSync(settings);
        const plan = planProtected({ roots: [ws], workspaceRoots: [ws] });
        assert.deepEqual(plan.readOnlyBecause, []);
        assert.deepEqual(plan.skipped, [`${settings}: has 2 hard links; the others are protected already; 1 not found in the writable folders: replaced by a copy of its own, which they do not reach`]);
        const now = lstatSync(settings);
        assert.notEqual(now.ino, was.ino);
        assert.equal(now.nlink, 1);
        assert.equal(now.mode, was.mode);
        assert.equal(Math.floor(now.mtimeMs), Math.floor(was.mtimeMs));
        assert.equal(readFileSync(settings, 'utf8'), '{"a": 1}\n');
        // What is written through the other link no longer reaches the protected name.
        writeFileSync(other, '{"evil": 1}\n');
        assert.equal(readFileSync(settings, 'utf8'), '{"a": 1}\n');
        assert.equal(lstatSync(other).nlink, 1);
      });
    }

    it('a linked protected file that cannot be copied (too big) makes the plan read-only', () => {
      writeFileSync(path.join(ws, '.mcp.json'), Buffer.alloc(DETACH_MAX_BYTES + 1, 0x20));
      mkdirSync(path.join(ws, 'node_modules'));
      linkSync(path.join(ws, '.mcp.json'), path.join(ws, 'node_modules', 'x'));
      const plan = planProtected({ roots: [ws], workspaceRoots: [ws] });
      assert.deepEqual(plan.readOnlyBecause, [`${path.join(ws, '.mcp.json')}: has 2 hard links, 1 of them not found, and could not be replaced by a copy of its own (over ${DETACH_MAX_BYTES} bytes)`]);
      assert.equal(lstatSync(path.join(ws, '.mcp.json')).nlink, 2);
    });

    it('a protected file rewritten with as many bytes and its times set back is a change', () => {
      mkdirSync(path.join(ws, '.vscode'));
      const settings = path.join(ws, '.vscode', 'settings.json');
      writeFileSync(settings, '{"a": 1}\n');
      const plan = planProtected({ roots: [ws], workspaceRoots: [ws] });
      const before = snapshotProtected(plan, [ws]);
      sameSizeSameTime(settings, '{"b": 2}\n');
      assert.deepEqual(compareSnapshots(before, snapshotProtected(plan, [ws])), [`${settings} was changed`]);
    });
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

    function hostGitStatus(dir: string): void {
      spawnSync('git', ['status', '--short'], { cwd: dir, stdio: 'ignore', env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
    }

    for (const skipped of ['node_modules', '.cache/a/b']) {
      it(`a new repository's config linked into ${skipped}, rewritten later with the same size and time: the host git never runs it`, async () => {
        const r1 = await run(`git init -q && mkdir -p ${skipped} && ln .git/config ${skipped}/x && echo made`);
        assert.equal(r1.output, 'made\n');
        const config = readFileSync(path.join(ws, '.git', 'config'), 'utf8');
        const evil = evilConfigOfSize(config.length);
        writeFileSync(path.join(root, 'evil'), evil);
        const r2 = await run(`touch -r ${skipped}/x ref && cat ${path.join(root, 'evil')} > ${skipped}/x && touch -r ref ${skipped}/x && echo wrote`);
        assert.equal(r2.output, 'wrote\n');
        assert.equal(readFileSync(path.join(ws, skipped, 'x'), 'utf8'), evil);
        assert.equal(readFileSync(path.join(ws, '.git', 'config'), 'utf8'), config);
        hostGitStatus(ws);
        assert.equal(existsSync(canary), false, 'the host git ran the fsmonitor written through the hard link');
      });
    }

    it('a protected file changed while a command ran (as through a link no mount covered) is moved aside, not only named', async () => {
      mkdirSync(path.join(ws, '.vscode'));
      const file = path.join(ws, '.vscode', 'settings.json');
      writeFileSync(file, '{"a": 1}\n');
      const watch = runtime.watch();
      sameSizeSameTime(file, '{"b": 2}\n');
      const r = watch.finish('');
      assert.deepEqual(r.protectedChanged, [`${file} was changed (moved aside to ${file}${BLOCKED_SUFFIX})`]);
      assert.equal(existsSync(file), false);
      assert.equal(readFileSync(`${file}${BLOCKED_SUFFIX}`, 'utf8'), '{"b": 2}\n');
    });

    it('a changed git config that sets only what git itself writes (a remote, a branch) stays; one that sets a fsmonitor is moved aside', async () => {
      execFileSync('git', ['init', '-q', ws]);
      const config = path.join(ws, '.git', 'config');
      const gitEnv = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
      let watch = runtime.watch();
      execFileSync('git', ['-C', ws, 'remote', 'add', 'origin', 'https://example.invalid/r.git'], { env: gitEnv });
      execFileSync('git', ['-C', ws, 'config', 'branch.main.remote', 'origin'], { env: gitEnv });
      assert.deepEqual(watch.finish('').protectedChanged, [`${config} was changed (left in place: it sets nothing git runs or reads)`]);
      assert.match(readFileSync(config, 'utf8'), /example\.invalid/);
      watch = runtime.watch();
      execFileSync('git', ['-C', ws, 'config', 'core.fsmonitor', `touch ${canary}; false`], { env: gitEnv });
      assert.deepEqual(watch.finish('').protectedChanged, [`${config} was changed (moved aside to ${config}${BLOCKED_SUFFIX})`]);
      spawnSync('git', ['status', '--short'], { cwd: ws, stdio: 'ignore', env: gitEnv });
      assert.equal(existsSync(canary), false, 'the host git ran the fsmonitor');
    });
  });
});
