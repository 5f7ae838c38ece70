// The home folder as the sandbox's own (privateHome.ts): the plan of what is bound in, and, with
// real bwrap and bash, a credential file the host creates while a command runs stays out of its
// view (one-shot and persistent shell), while what the list shows is read as before.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalShellExecutor } from '../../../../../src/exec/localExecutor';
import { HOME_VISIBLE_PATHS, holdsSecret, insideSecret, planPrivateHome } from '../../../../../src/exec/sandbox/mounts/privateHome';
import { SECRET_HOME_PATTERNS } from '../../../../../src/exec/sandbox/mounts/secretPaths';
import { probeSandbox } from '../../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, resolveFsPolicy, type SandboxSettings } from '../../../../../src/exec/sandbox/sandboxPolicy';
import { homePathValue, SandboxRuntime } from '../../../../../src/exec/sandbox/sandboxRuntime';
import { NodePtyExecutor } from '../../../../../src/exec/ptyExecutor';
import { FakeSink } from '../../helpers';

describe('exec/sandbox/mounts: the private home', function () {
  this.timeout(120_000);
  let root: string;
  let home: string;
  let ws: string;
  const mk = (rel: string, text?: string): string => {
    const p = path.join(home, rel);
    if (text === undefined) mkdirSync(p, { recursive: true });
    else {
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, text);
    }
    return p;
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-home-'));
    home = path.join(root, 'home');
    ws = path.join(home, 'projects', 'app');
    mkdirSync(ws, { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('no listed path is or holds a credential store (each would be bound whole)', () => {
    for (const rel of HOME_VISIBLE_PATHS) {
      assert.equal(insideSecret(rel), false, rel);
      // `.config/git` holds `credentials`, `.cache` a model hub's token, the Julia, Dart and Stack
      // folders their registries' tokens: each is bound entry by entry.
      if (!['.config/git', '.cache', '.julia', '.pub-cache', '.stack'].includes(rel)) assert.equal(holdsSecret(rel), false, rel);
    }
    for (const pattern of SECRET_HOME_PATTERNS) assert.equal(insideSecret(pattern.replace(/\*/g, 'x')), true, pattern);
    assert.equal(insideSecret('.env.local'), true);
    assert.equal(holdsSecret('.config'), true);
    assert.equal(holdsSecret('.cache'), true);
    assert.equal(insideSecret('.cache/huggingface/token'), true);
    assert.equal(insideSecret('.cache/pip'), false);
    assert.equal(insideSecret('.julia/servers/pkg.julialang.org/auth.toml'), true);
    assert.equal(insideSecret('.julia/packages'), false);
    assert.equal(holdsSecret('.config/Code - OSS/User'), true);
  });

  it('binds what exists of the list, the PATH folders and extras beneath the home; never a credential store; not where a writable folder holds the home', () => {
    mk('.gitconfig', '[user]\n\tname = n\n');
    mk('.config/git/ignore', '*.log\n');
    mk('.config/git/credentials', 'https://u:p@example.org\n');
    mk('.cargo/bin');
    mk('.cargo/credentials.toml', 'token\n');
    mk('tools/bin');
    mk('.ssh/bin');
    mk('dotfiles/npmrc', 'token\n');
    symlinkSync(path.join(home, '.ssh'), path.join(home, '.local-ssh'));
    mk('.aws/credentials', 'SECRET\n');
    const plan = planPrivateHome({
      home,
      writable: [ws],
      pathValue: ['/usr/bin', path.join(home, 'tools/bin'), path.join(home, '.ssh/bin'), path.join(home, '.local-ssh'), 'rel/bin'].join(':'),
      extra: [path.join(home, 'dotfiles')],
    });
    assert.ok(plan);
    assert.deepEqual(plan.binds.map((b) => path.relative(home, b)).sort(), ['.cargo/bin', '.config/git/ignore', '.gitconfig', 'dotfiles', 'tools/bin']);
    // A workspace folder that is the home (or holds it): no private home, the masks as before.
    assert.equal(planPrivateHome({ home, writable: [home] }), undefined);
    assert.equal(planPrivateHome({ home, writable: [root] }), undefined);
    // The policy: no mask for what the private home does not show.
    const settings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };
    const fs = resolveFsPolicy(settings, { home, workspaceRoots: [ws], tmpDir: path.join(root, 'tmp') });
    assert.ok(fs.privateHome);
    assert.deepEqual(fs.denyRead, []);
    const shared = resolveFsPolicy(settings, { home, workspaceRoots: [home], tmpDir: path.join(root, 'tmp') });
    assert.equal(shared.privateHome, undefined);
    assert.ok(shared.denyRead.includes(path.join(home, '.aws')));
  });

  describe('sandboxed (real bwrap)', () => {
    let runtime: SandboxRuntime;
    const settings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };

    before(function () {
      if (!probeSandbox().sandbox) this.skip();
    });
    beforeEach(() => {
      runtime = new SandboxRuntime({ settings: () => settings, workspaceRoots: () => [ws], home });
    });
    afterEach(() => runtime.dispose());

    /** Runs `command` (which touches `started`, then waits for `go`); meanwhile the host writes the secrets. */
    async function secretsMidCommand(executor: LocalShellExecutor, sessionKey?: string): Promise<string> {
      const sink = new FakeSink();
      const command = [
        'touch started',
        'while [ ! -e go ]; do sleep 0.02; done',
        'for f in ~/.aws/credentials ~/.config/gh/hosts.yml ~/.docker/config.json ~/.npmrc ~/.netrc ~/.ssh/id_ed25519 ~/.config/git/credentials ~/.cargo/credentials.toml ~/.cache/huggingface/token; do cat "$f" 2>/dev/null && echo "SAW $f"; done',
        'cat ~/.gitconfig',
        'ls ~/projects',
        'echo end',
      ].join('; ');
      const run = executor.run({ command, cwd: ws, timeoutMs: 60_000, sink, ...(sessionKey ? { sessionKey } : {}) });
      for (let i = 0; i < 1200 && !existsSync(path.join(ws, 'started')); i++) await new Promise((r) => setTimeout(r, 25));
      assert.ok(existsSync(path.join(ws, 'started')), 'the command started');
      for (const rel of ['.aws/credentials', '.config/gh/hosts.yml', '.docker/config.json', '.npmrc', '.netrc', '.ssh/id_ed25519', '.config/git/credentials', '.cargo/credentials.toml', '.cache/huggingface/token']) mk(rel, 'SECRET-MID-COMMAND\n');
      writeFileSync(path.join(ws, 'go'), '');
      const r = await run;
      assert.equal(r.exitCode, 0, sink.text());
      return sink.text();
    }

    it('a credential file the host creates mid-command is not seen (one-shot); git\'s settings are', async () => {
      mk('.gitconfig', '[user]\n\tname = seen\n');
      mk('.cargo/bin');
      mk('.config/git/ignore', '*.log\n');
      mk('.cache/huggingface/hub');
      const executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
      try {
        const out = await secretsMidCommand(executor);
        assert.doesNotMatch(out, /SECRET-MID-COMMAND|SAW /, out);
        assert.match(out, /^\tname = seen$/m, out);
        // The workspace is there; its sibling projects' folder shows it alone.
        assert.match(out, /^app\nend\n$/m, out);
      } finally {
        await executor.dispose();
      }
    });

    it('a PATH the call sets binds nothing of the home that this process\'s PATH does not have (one-shot and PTY)', async () => {
      mk('projects/other/.env', 'SIBLING-TOKEN\n');
      mk('secretdir/notes.txt', 'HOME-SECRET\n');
      mk('.bashrc', 'export T=BASHRC-TOKEN\n');
      const kept = mk('tools/bin');
      const env = { PATH: [path.join(home, 'projects', 'other'), path.join(home, 'secretdir'), path.join(home, '.bashrc'), kept, '/usr/bin', '/bin'].join(':') };
      const command = 'for f in ~/projects/other/.env ~/secretdir/notes.txt ~/.bashrc; do cat "$f" 2>/dev/null; done; ls ~/tools 2>&1; echo end';
      const hostPath = process.env.PATH;
      process.env.PATH = `${kept}:${hostPath ?? ''}`;
      const executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
      const pty = new NodePtyExecutor({ sandbox: runtime, shellArgs: ['-c'], baseEnv: { ...process.env, HOME: home } });
      try {
        const oneShot = new FakeSink();
        await executor.run({ command, cwd: ws, timeoutMs: 60_000, sink: oneShot, env });
        const viaPty = new FakeSink();
        await pty.start({ command, cwd: ws, timeoutMs: 60_000, sink: viaPty, env }).result;
        // What this process's PATH has of the call's (tools/bin) is bound; nothing else of the home.
        for (const [route, text] of [['one-shot', oneShot.text()], ['PTY', viaPty.text().replace(/\r/g, '')]]) {
          assert.equal(text, 'bin\nend\n', route);
        }
      } finally {
        process.env.PATH = hostPath;
        await executor.dispose();
        await pty.dispose();
      }
    });

    it('homePathValue: the shell\'s PATH as it is; a PATH the call set keeps only what this process\'s PATH has', () => {
      assert.equal(homePathValue('/h/.cargo/bin:/usr/bin', undefined, '/usr/bin'), '/h/.cargo/bin:/usr/bin');
      assert.equal(homePathValue('/h/p:/h/.ssh:/h/bin:/usr/bin', '/h/p:/h/.ssh:/h/bin/:/usr/bin:rel', '/usr/bin:/h/bin'), '/h/bin/:/usr/bin');
      assert.equal(homePathValue('', '', '/usr/bin'), '');
    });

    it('a credential file the host creates while a persistent shell lives is not seen by its next call either', async () => {
      const executor = new LocalShellExecutor({ persistent: true, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
      try {
        const first = new FakeSink();
        await executor.run({ command: 'echo first', cwd: ws, timeoutMs: 60_000, sink: first, sessionKey: 's' });
        assert.equal(first.text(), 'first\n');
        const out = await secretsMidCommand(executor, 's');
        assert.doesNotMatch(out, /SECRET-MID-COMMAND|SAW /, out);
        rmSync(path.join(ws, 'started'));
        rmSync(path.join(ws, 'go'));
        // Already there when the next call starts: still hidden.
        const again = await secretsMidCommand(executor, 's');
        assert.doesNotMatch(again, /SECRET-MID-COMMAND|SAW /, again);
      } finally {
        await executor.dispose();
      }
    });
  });
});
