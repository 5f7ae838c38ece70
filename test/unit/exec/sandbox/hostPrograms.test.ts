// The host's own helpers come from trusted folders only: fake `git`, `bwrap`, `socat`, `bash`,
// `perl`, `direnv`, `mkfifo`, `sleep`, `nsenter` in a workspace folder on PATH (an activated
// `.venv/bin`), in a relative PATH entry, in a folder owned by another user and in one anybody may
// write are never run by the host: each would leave a marker file outside every writable folder.
// Real bwrap, git, bash; both launcher routes (AGENT_BASH_NATIVE_LAUNCH=off runs the scripts').
import * as assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BashExpander } from '../../../../src/exec/bashExpander';
import { findDirenv } from '../../../../src/exec/direnv';
import { addUntrustedFolders, hostProgram, trustedSearchPath } from '../../../../src/exec/hostPrograms';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { getShellConfig } from '../../../../src/exec/shellConfig';
import { findOnPath, probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { FakeSink } from '../helpers';

const HELPERS = ['git', 'bwrap', 'socat', 'bash', 'perl', 'direnv', 'mkfifo', 'sleep', 'nsenter', 'sh'];

describe('exec/sandbox: host programs by trusted absolute paths', function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;
  let markers: string;
  let venv: string;
  let foreign: string;
  let open: string;
  let savedPath: string | undefined;
  let savedCwd: string;

  /** A fake `name` in `dir`: it leaves a marker, then runs the real one (so nothing else changes). */
  function plantFakes(dir: string, tag: string): void {
    mkdirSync(dir, { recursive: true });
    for (const name of HELPERS) {
      const real = findOnPath(name, '/usr/local/bin:/usr/bin:/bin') ?? '/bin/true';
      writeFileSync(path.join(dir, name), `#!/bin/sh\n: > ${markers}/${tag}-${name}\nexec ${real} "$@"\n`, { mode: 0o755 });
    }
  }

  before(function () {
    if (process.getuid?.() !== 0) this.skip(); // the folder of another owner needs chown
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-hostprog-'));
    ws = path.join(root, 'ws');
    markers = path.join(root, 'markers');
    mkdirSync(ws);
    mkdirSync(markers, { mode: 0o777 });
    chmodSync(markers, 0o777);
    venv = path.join(ws, '.venv', 'bin');
    plantFakes(venv, 'venv');
    plantFakes(path.join(ws, 'relbin'), 'relative');
    foreign = path.join(root, 'foreign');
    plantFakes(foreign, 'foreign');
    chownSync(foreign, 65534, 65534);
    open = path.join(root, 'open');
    plantFakes(open, 'open');
    chmodSync(open, 0o777);
    savedPath = process.env.PATH;
    savedCwd = process.cwd();
    process.chdir(ws);
    process.env.PATH = [venv, 'relbin', foreign, open, savedPath ?? '/usr/bin:/bin'].join(path.delimiter);
  });

  afterEach(() => {
    process.env.PATH = savedPath;
    process.chdir(savedCwd);
    rmSync(root, { recursive: true, force: true });
  });

  const ran = (): string[] => readdirSync(markers).sort();

  it('the trusted search path drops relative entries, workspace folders, folders of another owner and folders others may write', () => {
    const unregister = addUntrustedFolders(() => [ws]);
    try {
      const dirs = trustedSearchPath(process.env.PATH);
      for (const bad of [venv, path.join(ws, 'relbin'), foreign, open]) assert.ok(!dirs.includes(bad), `${bad} in ${dirs.join(':')}`);
      assert.ok(dirs.includes('/usr/bin'), dirs.join(':'));
      for (const name of HELPERS) {
        const found = hostProgram(name);
        const clean = hostProgram(name, '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
        assert.equal(found, clean, name);
      }
      // A folder of ours under a sticky /tmp, closed to others, is trusted (the judge of the rule).
      const mine = path.join(root, 'mine');
      plantFakes(mine, 'mine');
      chmodSync(mine, 0o755);
      assert.equal(hostProgram('git', `${mine}:/usr/bin`), path.join(mine, 'git'));
      // Once the runtime says the folder is writable, it is not.
      const unregisterMine = addUntrustedFolders(() => [mine]);
      assert.equal(hostProgram('git', `${mine}:/usr/bin`), '/usr/bin/git');
      unregisterMine();
    } finally {
      unregister();
    }
    assert.deepEqual(ran(), []);
  });

  for (const route of ['native', 'scripts'] as const) {
    it(`${route} launcher: probing, sandboxed commands, the quarantine's git, the expander's bash and mkfifo, direnv and the shell never run a fake`, async () => {
      const savedNative = process.env.AGENT_BASH_NATIVE_LAUNCH;
      if (route === 'scripts') process.env.AGENT_BASH_NATIVE_LAUNCH = 'off';
      const settings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };
      const runtime = new SandboxRuntime({ settings: () => settings, workspaceRoots: () => [ws], home: path.join(root, 'home') });
      const executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env } });
      const expander = new BashExpander();
      try {
        const support = probeSandbox();
        if (!support.sandbox) return;
        for (const p of [support.bwrap, support.socat, support.bash, support.nsenter]) assert.ok(p !== undefined && !p.startsWith(root), String(p));
        // A command that makes a repository: the look after it runs the host's git on its config.
        const watch = runtime.watch();
        const sink = new FakeSink();
        const r = await executor.run({ command: 'mkdir sub && cd sub && /usr/bin/git init -q && /usr/bin/git config core.fsmonitor ./x && echo done', cwd: ws, timeoutMs: 60_000, sink });
        assert.equal(sink.text(), 'done\n');
        assert.equal(r.exitCode, 0);
        const done = watch.finish(sink.text());
        assert.ok(done.protectedChanged.some((l) => l.includes('sets core.fsmonitor')), done.protectedChanged.join('\n'));
        const words = expander.expand(['~'], ws);
        assert.ok(!('failure' in words), JSON.stringify(words));
        const direnv = findDirenv(process.env);
        assert.ok(direnv === undefined || !direnv.startsWith(root), direnv);
        const shell = getShellConfig({ env: { ...process.env, SHELL: '' } }).shell;
        assert.ok(!shell.startsWith(root), shell);
        assert.deepEqual(ran(), []);
      } finally {
        expander.dispose();
        await executor.dispose();
        runtime.dispose();
        if (savedNative === undefined) delete process.env.AGENT_BASH_NATIVE_LAUNCH;
        else process.env.AGENT_BASH_NATIVE_LAUNCH = savedNative;
      }
      assert.equal(existsSync(path.join(markers, 'venv-git')), false);
    });
  }
});
