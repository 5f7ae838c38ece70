// The Landlock prefix (landlock.ts) on its own, under a plain bubblewrap: changes only beneath the
// folders it is given (a host named pipe outside is refused, and so is every change in a folder a
// mount made writable by mistake — what a bind that followed a swapped-in symlink would give; the
// same works without it), and a folder that is a symlink by the time it runs stops it before the
// command runs.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { landlockAccess, landlockFolders, landlockPrefix, landlockSupport } from '../../../../../src/exec/sandbox/kernel/landlock';
import { NATIVE_LAUNCH_ENV, nativeInnerPrefix, nativeLaunch } from '../../../../../src/exec/sandbox/kernel/nativeLaunch';
import { findOnPath, probeSandbox } from '../../../../../src/exec/sandbox/sandboxProbe';

// Both routes, the same assertions: perl's script (landlock.ts) and the compiled launcher's `inner` (nativeLaunch.ts).
for (const route of ['perl', 'compiled launcher'] as const) describe(`exec/sandbox: the Landlock prefix (${route})`, function () {
  this.timeout(60_000);
  let landlockPrefixOf: (folders: string[]) => string[];
  let root: string;
  let bwrap: string;

  before(function () {
    const support = probeSandbox();
    if (!support.sandbox) this.skip();
    if (route === 'perl') {
      const found = landlockSupport(findOnPath('perl', process.env.PATH));
      // Without bubblewrap, perl or a Landlock of ABI 2+ (Linux 5.19) the prefix is not used (sandboxEscapes.test.ts checks the note).
      if (found.perl === undefined || found.abi === undefined) this.skip();
      const ll = { perl: found.perl, abi: found.abi };
      landlockPrefixOf = (folders) => landlockPrefix(ll, folders);
    } else {
      // The launcher is built by `npm run build` wherever a C compiler is (CI has one): missing here is a failure.
      // (AGENT_BASH_NATIVE_LAUNCH=off: the run of the script route.)
      if (process.env[NATIVE_LAUNCH_ENV] === 'off') this.skip();
      const native = nativeLaunch();
      assert.ok(native, 'dist/agent-bash-launch was not built');
      if (native.abi < 2) this.skip();
      landlockPrefixOf = (folders) => nativeInnerPrefix(native, 0, { access: landlockAccess(native.abi), folders: landlockFolders(folders) });
    }
    bwrap = support.bwrap as string;
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'agent-bash-landlock-')));
  });

  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const run = (prefix: string[], script: string, binds: string[]): ReturnType<typeof spawnSync> =>
    spawnSync(bwrap, ['--ro-bind', '/', '/', ...binds.flatMap((b) => ['--bind', b, b]), '--dev', '/dev', '--proc', '/proc', '--unshare-user', '--unshare-pid', '--die-with-parent', '--', ...prefix, '/bin/bash', '-c', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('refuses opening a named pipe outside the folders for writing; writes, renames, /dev and /proc beneath them work', () => {
    const ws = path.join(root, 'ws');
    mkdirSync(path.join(ws, 'a'), { recursive: true });
    mkdirSync(path.join(ws, 'b'));
    const fifo = path.join(root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    // O_RDWR never blocks on a pipe: the same open outside the ruleset works.
    const script = `exec 3<>${fifo}; echo "fifo: $?"; echo x > a/f && mv a/f b/f && echo moved; echo > /dev/null && echo null; echo 500 > /proc/self/oom_score_adj && echo proc`;
    const without = run([], `cd ${ws}; ${script}`, [ws]);
    assert.equal(without.stdout, 'fifo: 0\nmoved\nnull\nproc\n', String(without.stderr));
    rmSync(path.join(ws, 'b', 'f'));
    const within = run(landlockPrefixOf([ws]), `cd ${ws}; ${script}`, [ws]);
    assert.equal(within.stdout, 'fifo: 1\nmoved\nnull\nproc\n', String(within.stderr));
    assert.equal(within.stderr, `/bin/bash: line 1: ${fifo}: Permission denied\n`);
  });

  it('a folder mounted writable but not given to it stays unchanged: no file written, made, removed, renamed, linked or truncated', () => {
    const ws = path.join(root, 'ws2');
    const home = path.join(root, 'home');
    mkdirSync(ws);
    mkdirSync(path.join(home, 'sub'), { recursive: true });
    writeFileSync(path.join(home, '.bashrc'), 'mine\n');
    const attempts = [
      'echo x >> .bashrc', 'rm .bashrc', 'mv .bashrc sub/', 'mv .bashrc old', 'ln -s /x evil', 'ln .bashrc hard', 'mkdir d', 'rmdir sub',
      'mkfifo p', 'truncate -s 0 .bashrc', `mv .bashrc ${ws}/`, `ln -s ${ws} ${ws}/ok-link`,
    ].map((a) => `${a} 2>/dev/null; echo "$?"`);
    const script = `cd ${home}; ${attempts.join('; ')}`;
    const r = run(landlockPrefixOf([ws]), script, [ws, home]);
    // The last one works: the link is made in the folder given.
    assert.equal(r.stdout, `${'1\n'.repeat(attempts.length - 1)}0\n`, String(r.stderr));
    assert.deepEqual(readdirSync(home).sort(), ['.bashrc', 'sub']);
    assert.equal(readFileSync(path.join(home, '.bashrc'), 'utf8'), 'mine\n');
    // Without the ruleset the same mount lets every one of them through (the first one, at least).
    const without = run([], `cd ${home}; echo x >> .bashrc; echo "$?"`, [ws, home]);
    assert.equal(without.stdout, '0\n');
  });

  it('a folder that is a symlink when the prefix runs stops it, with the reason; the command does not run', () => {
    const target = path.join(root, 'target');
    mkdirSync(target);
    const link = path.join(root, 'swapped');
    symlinkSync(target, link);
    const r = run(landlockPrefixOf([link]), 'echo ran', [target]);
    assert.equal(r.status, 126, String(r.stderr));
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `agent-bash sandbox: the writable folder ${link} is now reached through a symlink (to ${target}); nothing was run\n`);
  });
});
