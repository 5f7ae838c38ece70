// The shared network namespace of sandboxed commands (real bwrap, socat, nsenter, bash): commands
// enter one namespace that is not the host's, the host's loopback stays out of reach, a server one
// sandboxed session starts is reached by another, each command hears only its own refusals, a
// runtime that does not share gives every command its own namespace, and dispose ends the holder.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync, mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalShellExecutor } from '../../../../../src/exec/localExecutor';
import { NodePtyExecutor } from '../../../../../src/exec/ptyExecutor';
import { proxyToken } from '../../../../../src/exec/sandbox/network/networkProxy';
import { probeSandbox } from '../../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS } from '../../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../../src/exec/sandbox/sandboxRuntime';
import { CGROUP_ENTER_SCRIPT } from '../../../../../src/exec/sandbox/kernel/limits';
import { NATIVE_LAUNCH_NAME } from '../../../../../src/exec/sandbox/kernel/nativeLaunch';
import { FakeSink } from '../../helpers';

/** Live processes whose command line contains `needle`. */
function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').join(' ').includes(needle)) found.push(Number(e));
    } catch {
      // Gone while reading.
    }
  }
  return found;
}

/** The program a wrapped spawn starts, past the shell that enters the command's cgroups (limits.ts). */
/** The launcher's file and arguments, past the cgroup-entering prefix a root run may have (limits.ts). */
/** The launcher's network argument: the compiled launcher's (nativeLaunch.ts) or the script's (launcher.ts, after the cgroup shell). */
function launcherNet(w: { file: string; args: string[] }): { route: 'native' | 'script'; net: string } {
  if (path.basename(w.file) === NATIVE_LAUNCH_NAME) {
    assert.equal(w.args[0], 'outer');
    return { route: 'native', net: w.args[4] };
  }
  let l = w;
  if (w.file === '/bin/sh' && w.args[1] === CGROUP_ENTER_SCRIPT) {
    const rest = w.args.slice(w.args.indexOf('--') + 1);
    l = { file: rest[0], args: rest.slice(1) };
  }
  assert.equal(path.basename(l.file), 'bash');
  return { route: 'script', net: l.args[7] };
}

describe('exec/sandbox: one network namespace for sandboxed commands', function () {
  this.timeout(60_000);
  let ws: string;
  let runtime: SandboxRuntime;
  let executor: LocalShellExecutor;

  before(function () {
    const support = probeSandbox();
    if (!support.sandbox || !support.nsenter) this.skip();
  });

  beforeEach(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-sharednet-'));
    runtime = new SandboxRuntime({ settings: () => ({ ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' }), workspaceRoots: () => [ws] });
    executor = new LocalShellExecutor({ sandbox: runtime, shellArgs: ['-c'] });
  });

  afterEach(async () => {
    await executor.dispose();
    runtime.dispose();
    rmSync(ws, { recursive: true, force: true });
  });

  async function run(command: string, sessionKey?: string): Promise<{ exitCode: number | undefined; text: string }> {
    const sink = new FakeSink();
    const r = await executor.run({ command, cwd: ws, timeoutMs: 20_000, sink, ...(sessionKey ? { sessionKey } : {}) });
    return { exitCode: r.exitCode, text: sink.text() };
  }

  it('commands enter one namespace that is not the host one (setns, or nsenter on the script route)', async () => {
    assert.equal(await runtime.warmNetwork(), true);
    const wrapped = runtime.wrap(['/bin/true'], { env: {} });
    wrapped.dispose();
    // The launcher enters the namespace with the options of the holder.
    assert.match(launcherNet(wrapped).net, /^enter:--target \d+ --user --preserve-credentials --net$/);
    assert.ok(!wrapped.args.includes('--unshare-net'), wrapped.args.join(' '));
    const a = await run('readlink /proc/self/ns/net');
    const b = await run('readlink /proc/self/ns/net');
    assert.equal(a.exitCode, 0);
    assert.match(a.text, /^net:\[\d+\]\n$/);
    assert.equal(b.text, a.text);
    assert.notEqual(a.text, `${readlinkSync('/proc/self/ns/net')}\n`);
  });

  it("the host's loopback stays out of reach; a server one sandboxed session starts is reached from another", async () => {
    assert.equal(await runtime.warmNetwork(), true);
    const host = net.createServer((s) => s.end('HOST-LOOPBACK\n'));
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    const hostPort = (host.address() as AddressInfo).port;
    try {
      const probe = await run(`exec 3<>/dev/tcp/127.0.0.1/${hostPort} && cat <&3`);
      assert.notEqual(probe.exitCode, 0);
      assert.doesNotMatch(probe.text, /HOST-LOOPBACK/);
      assert.match(probe.text, /Connection refused/);

      const port = 20_000 + (process.pid % 20_000);
      const server = `node -e 'require("net").createServer((s) => s.end("INSIDE\\n")).listen(${port}, "127.0.0.1")' & sleep 0.05`;
      assert.equal((await run(server, 'server-session')).exitCode, 0);
      let reached = '';
      for (let i = 0; i < 100 && reached !== 'INSIDE\n'; i++) {
        reached = (await run(`exec 3<>/dev/tcp/127.0.0.1/${port} 2>/dev/null && cat <&3`)).text;
        if (reached !== 'INSIDE\n') await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(reached, 'INSIDE\n');
    } finally {
      host.close();
    }
  });

  it('no unix socket can be made inside: a host socket is out of reach on one-shot, persistent and PTY runs; child processes (socketpair) still work', async () => {
    assert.equal(await runtime.warmNetwork(), true);
    const socketPath = path.join(ws, 'host.sock');
    const host = net.createServer((s) => s.end('HOST-UNIX\n'));
    await new Promise<void>((r) => host.listen(socketPath, r));
    const probe = `node -e 'require("net").connect(process.argv[1]).on("data", (d) => process.stdout.write(d)).on("error", (e) => console.log("refused:", e.code))' ${socketPath}`;
    const pair = `node -e 'console.log("child:", require("child_process").execFileSync("echo", ["ok"]).toString().trim())'`;
    try {
      const oneShot = await run(`${probe}; ${pair}`);
      assert.equal(oneShot.text, 'refused: EACCES\nchild: ok\n');
      const persistent = await run(`${probe}; ${pair}`, 'a-session');
      assert.equal(persistent.text, 'refused: EACCES\nchild: ok\n');
      const pty = new NodePtyExecutor({ sandbox: runtime, shellArgs: ['-c'] });
      try {
        const sink = new FakeSink();
        await pty.start({ command: probe, cwd: ws, timeoutMs: 20_000, sink }).result;
        assert.match(sink.text(), /refused: EACCES/);
        assert.doesNotMatch(sink.text(), /HOST-UNIX/);
      } finally {
        await pty.dispose();
      }
      // Outside the sandbox the same probe reaches it: the test's socket is real.
      const outside = new LocalShellExecutor({ shellArgs: ['-c'] });
      try {
        const sink = new FakeSink();
        await outside.run({ command: probe, cwd: ws, timeoutMs: 20_000, sink });
        assert.equal(sink.text(), 'HOST-UNIX\n');
      } finally {
        await outside.dispose();
      }
    } finally {
      host.close();
    }
  });

  it('two commands at once each hear only their own refused host', async () => {
    assert.equal(await runtime.warmNetwork(), true);
    const [a, b] = await Promise.all([
      run('curl -sS -m 5 http://first-host.invalid/ ; true'),
      run('curl -sS -m 5 -o /dev/null https://second-host.invalid/ ; true'),
    ]);
    assert.match(a.text, /\[sandbox\] network access to first-host\.invalid:80 was refused: not in agentBash\.sandbox\.network\.allowedDomains$/m);
    assert.doesNotMatch(a.text, /second-host/);
    assert.match(b.text, /\[sandbox\] network access to second-host\.invalid:443 was refused: not in agentBash\.sandbox\.network\.allowedDomains$/m);
    assert.doesNotMatch(b.text, /first-host/);
  });

  it('dispose ends the holder and every socat it forked', async () => {
    assert.equal(await runtime.warmNetwork(), true);
    const needle = `proxy-${process.pid}-shared.sock`;
    assert.equal(processesWith(needle).length > 0, true);
    runtime.dispose();
    let left = processesWith(needle);
    for (let i = 0; i < 100 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      left = processesWith(needle);
    }
    assert.deepEqual(left, []);
  });

  it('where the shared namespace cannot start (no nsenter), commands run with loopback only, never with a bridge of their own', async () => {
    const own = new SandboxRuntime({
      settings: () => ({ ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on', allowedDomains: ['example.com'] }),
      workspaceRoots: () => [ws],
      probe: () => ({ ...probeSandbox(), nsenter: undefined }),
    });
    const ownExecutor = new LocalShellExecutor({ sandbox: own, shellArgs: ['-c'] });
    try {
      assert.equal(await own.warmNetwork(), false);
      const wrapped = own.wrap(['/bin/true'], { env: {} });
      wrapped.dispose();
      assert.equal(launcherNet(wrapped).net, 'none');
      const sink = new FakeSink();
      const r = await ownExecutor.run({ command: 'readlink /proc/self/ns/net; cat /proc/net/tcp | wc -l; echo "proxy=${http_proxy:-unset}"; exec 3<>/dev/tcp/127.0.0.1/3128', cwd: ws, timeoutMs: 20_000, sink });
      const lines = sink.text().split('\n');
      assert.notEqual(lines[0], readlinkSync('/proc/self/ns/net'));
      // Nothing listens inside (only the header line of /proc/net/tcp), and no proxy is offered.
      assert.equal(lines[1], '1');
      assert.equal(lines[2], 'proxy=unset');
      assert.match(sink.text(), /Connection refused/);
      assert.notEqual(r.exitCode, 0);
    } finally {
      await ownExecutor.dispose();
      own.dispose();
    }
  });
});

describe('exec/sandbox: the proxy token', () => {
  it("is the user name of the request's Proxy-Authorization (Basic), or nothing", () => {
    const basic = (userPass: string): string => Buffer.from(userPass).toString('base64');
    assert.equal(proxyToken(`CONNECT a:443 HTTP/1.1\r\nProxy-Authorization: Basic ${basic('agent-bash-1-7:')}\r\n\r\n`), 'agent-bash-1-7');
    assert.equal(proxyToken(`GET http://a/ HTTP/1.1\r\nproxy-authorization: basic ${basic('tok:secret')}\r\nHost: a\r\n\r\n`), 'tok');
    assert.equal(proxyToken(`GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n`), undefined);
    assert.equal(proxyToken(`GET http://a/ HTTP/1.1\r\nProxy-Authorization: Bearer xyz\r\n\r\n`), undefined);
    assert.equal(proxyToken(`GET http://a/ HTTP/1.1\r\nProxy-Authorization: Basic ${basic(':pw')}\r\n\r\n`), undefined);
  });
});
