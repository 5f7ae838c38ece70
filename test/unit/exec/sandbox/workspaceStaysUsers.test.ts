// The workspace stays the user's: the empty read-only folders bubblewrap needs as mount points for
// protected names that do not exist (`.vscode`, `.git` in a folder that is no repository…) are gone
// once no sandboxed process is left, and stay while one runs (removing a mount point would detach
// the mount inside it). Real bwrap and bash, one-shot and persistent shells.
import * as assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { FakeSink } from '../helpers';

/** Every entry below `dir` with its kind, mode and size, and the folder's own mtime (to the millisecond). */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      out.push(`${path.relative(dir, p)} ${st.mode.toString(8)} ${st.isDirectory() ? '-' : st.size}`);
      if (st.isDirectory()) walk(p);
    }
  };
  const st = lstatSync(dir);
  out.push(`. ${st.mode.toString(8)} ${Math.floor(st.mtimeMs)}`);
  walk(dir);
  return out;
}

describe('exec/sandbox: the workspace stays the user\'s', function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;
  let runtime: SandboxRuntime;
  const settings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };

  before(function () {
    if (!probeSandbox().sandbox) this.skip();
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-ws-'));
    ws = path.join(root, 'ws');
    mkdirSync(ws);
    runtime = new SandboxRuntime({ settings: () => settings, workspaceRoots: () => [ws], home: path.join(root, 'home') });
  });

  afterEach(() => {
    runtime.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('an empty folder is as it was after sandboxed `true` and `echo hi` (one-shot)', async () => {
    const executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime });
    try {
      const before = tree(ws);
      for (const command of ['true', 'echo hi']) {
        const sink = new FakeSink();
        const watch = runtime.watch();
        const r = await executor.run({ command, cwd: ws, timeoutMs: 60_000, sink });
        watch.finish(sink.text());
        assert.equal(r.exitCode, 0);
        assert.equal(sink.text(), command === 'true' ? '' : 'hi\n');
        assert.deepEqual(tree(ws), before, command);
      }
    } finally {
      await executor.dispose();
    }
  });

  it('a persistent shell: the protected names stay uncreatable while it runs, and the placeholders go when it ends', async () => {
    const executor = new LocalShellExecutor({ persistent: true, shellArgs: ['-c'], sandbox: runtime });
    const before = tree(ws);
    try {
      const sink = new FakeSink();
      await executor.run({ command: 'mkdir -p .vscode/x; touch .git/config; echo "exit $?"', cwd: ws, timeoutMs: 60_000, sessionKey: 's', sink });
      assert.match(sink.text(), /Read-only file system[\s\S]*exit 1\n$/);
      // While the shell lives its mount points stay (empty): nothing inside them.
      assert.deepEqual(readdirSync(path.join(ws, '.vscode')), []);
      const again = new FakeSink();
      await executor.run({ command: 'mkdir -p .vscode/x; echo "exit $?"', cwd: ws, timeoutMs: 60_000, sessionKey: 's', sink: again });
      assert.match(again.text(), /Read-only file system[\s\S]*exit 1\n$/);
    } finally {
      await executor.dispose();
    }
    assert.deepEqual(tree(ws), before);
  });
});
