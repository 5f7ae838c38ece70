// What holds a sandboxed command in beyond its mounts (real bwrap, bash, a compiled syscall probe):
// one seccomp filter on every route (one-shot, persistent shell first and later calls, a first call
// before the shared network namespace serves, background job, PTY, the VS Code terminals' bridge
// process, the CLI's `run`, the stdio MCP server's first call), with the host as the judge (the same
// probe works outside; a unix socket server on the host records every contact); a user namespace
// also as root, `/proc/sys` read-only, a session of its own; no descriptor the host inherited; and
// an environment allowlist.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BridgeProcess } from '../../../../src/exec/bridgeProcess';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { NodePtyExecutor } from '../../../../src/exec/ptyExecutor';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { seccompFilter } from '../../../../src/exec/sandbox/kernel/seccompFilter';
import { FakeSink } from '../helpers';
import { buildSyscallProbe, probeOutcomes } from './syscallProbe';

/**
 * Unix datagram sockets of the host's, one at a path and one at an abstract name (as journald's
 * `/dev/log` or systemd's notify socket), in python3 (Node has no unix datagram sockets): on each
 * `count()` it reads what is queued, without waiting, and answers how many datagrams that was.
 */
class DatagramListener {
  private lines: string[] = [];
  private waiters: Array<(line: string) => void> = [];
  private constructor(private readonly child: ChildProcessWithoutNullStreams, readonly file: string, readonly abstractName: string) {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const w = this.waiters.shift();
        if (w) w(line);
        else this.lines.push(line);
      }
    });
  }

  static async start(file: string, abstractName: string): Promise<DatagramListener> {
    const script = [
      'import socket, sys',
      'a = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); a.bind(sys.argv[1]); a.setblocking(False)',
      'b = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); b.bind("\\0" + sys.argv[2]); b.setblocking(False)',
      'print("ready", flush=True)',
      'for _ in sys.stdin:',
      '    n = 0',
      '    for s in (a, b):',
      '        while True:',
      '            try: s.recv(100); n += 1',
      '            except BlockingIOError: break',
      '    print(n, flush=True)',
    ].join('\n');
    const listener = new DatagramListener(spawn('python3', ['-c', script, file, abstractName]), file, abstractName);
    assert.equal(await listener.next(), 'ready');
    return listener;
  }

  private next(): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async count(): Promise<number> {
    this.child.stdin.write('\n');
    return Number(await this.next());
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

const CLI = path.resolve(__dirname, '../../../../../dist/cli.js');

/** What each probe must report inside the sandbox, on every route. */
const INSIDE: Record<string, string> = {
  unix_socket: 'EACCES',
  socketpair: 'ok',
  seqpacket_pair: 'ok',
  raw_pair: 'EACCES',
  dgram_path: 'EACCES',
  dgram_abstract: 'EACCES',
  inet_socket: 'ok',
  inet6_socket: 'ok',
  netlink_socket: 'ok',
  vsock_socket: 'EAFNOSUPPORT',
  alg_socket: 'EAFNOSUPPORT',
  io_uring_setup: 'EPERM',
  io_uring_enter: 'EPERM',
  io_uring_register: 'EPERM',
  keyctl: 'EPERM',
  add_key: 'EPERM',
  request_key: 'EPERM',
  userfaultfd: 'EPERM',
  perf_event_open: 'EPERM',
  ptrace: 'EPERM',
  process_vm_readv: 'EPERM',
  unshare_user: 'EPERM',
  clone_newuser: 'EPERM',
  clone_plain: 'ok',
  clone3: 'ENOSYS',
  personality: 'EPERM',
  personality_query: 'ok',
  tiocsti: 'EPERM',
  i386: 'killed by signal 31',
  x32: 'killed by signal 31',
};

/**
 * Probes that must work outside on any machine this suite runs on (the rest count where they do:
 * `int 0x80` is a SIGSEGV on kernels built or booted without IA-32 emulation, as on the CI machine,
 * and the filter's own test checks the i386 and x32 verdicts without running them).
 */
const MUST_WORK_OUTSIDE = ['unix_socket', 'socketpair', 'seqpacket_pair', 'raw_pair', 'dgram_path', 'dgram_abstract', 'io_uring_setup', 'keyctl', 'add_key', 'clone_plain', 'clone3', 'personality', 'process_vm_readv'];

describe('exec/sandbox: confinement beyond the mounts (seccomp, namespaces, descriptors, environment)', function () {
  this.timeout(240_000);
  let probe: string | undefined;
  let root: string;
  let ws: string;
  let hostSocket: string;
  let server: net.Server;
  let contacts = 0;
  let dgram: DatagramListener;
  /** Probes that work outside here (the judge), with the outcome expected inside. */
  let expected: Record<string, string>;
  let probeLine: string;

  before(async function () {
    const support = probeSandbox();
    if (!support.sandbox || !support.nsenter) this.skip();
    probe = buildSyscallProbe();
    if (!probe) this.skip();
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-confine-'));
    ws = path.join(root, 'ws');
    mkdirSync(ws);
    hostSocket = path.join(root, 'host.sock');
    server = net.createServer((s) => {
      contacts++;
      s.end();
    });
    await new Promise<void>((r) => server.listen(hostSocket, r));
    dgram = await DatagramListener.start(path.join(root, 'host-dgram.sock'), `agent-bash-test-${process.pid}`);
    const arg: Partial<Record<string, string>> = { unix_socket: hostSocket, dgram_path: dgram.file, dgram_abstract: dgram.abstractName };
    const names = Object.keys(INSIDE).map((n) => (arg[n] !== undefined ? `${n}=${arg[n]}` : n));
    // Outside, with nothing in between: the probe's calls work, and the host socket hears it.
    const outside = probeOutcomes(spawnSync(probe, names, { encoding: 'utf8' }).stdout);
    for (const name of MUST_WORK_OUTSIDE) assert.equal(outside[name], 'ok', `${name} outside the sandbox: ${outside[name]}`);
    for (let i = 0; i < 100 && contacts === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(contacts, 1, 'the host socket heard the probe run outside');
    contacts = 0;
    // Outside, each datagram probe reaches the host twice (sendto, then connect + send).
    assert.equal(await dgram.count(), 4, 'the host datagram sockets heard the probe run outside');
    expected = Object.fromEntries(Object.entries(INSIDE).filter(([name]) => outside[name] === 'ok'));
    probeLine = [probe, ...names.filter((n) => n.split('=')[0] in expected)].join(' ');
  });

  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when skipped
    server?.close();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when skipped
    dgram?.close();
    if (root) rmSync(root, { recursive: true, force: true });
    if (probe) rmSync(path.dirname(probe), { recursive: true, force: true });
  });

  const settings = (extra: Partial<SandboxSettings> = {}): SandboxSettings => ({ ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on', ...extra });

  async function assertConfined(route: string, text: string): Promise<void> {
    const got = probeOutcomes(text);
    const want = Object.fromEntries(Object.keys(expected).map((k) => [k, got[k] ?? '(missing)']));
    assert.deepEqual(want, expected, `${route}:\n${text}`);
    assert.equal(contacts, 0, `${route}: the host socket was reached`);
    // A datagram is queued when sendto returns: after the run, none may be waiting.
    assert.equal(await dgram.count(), 0, `${route}: the host's datagram sockets received something`);
  }

  it('every executor route runs under the filter: one-shot, persistent (first and later calls), background job, PTY, bridge process — first calls before the shared namespace serves included', async () => {
    const runtime = new SandboxRuntime({ settings: () => settings(), workspaceRoots: () => [ws] });
    const executor = new LocalShellExecutor({ sandbox: runtime, shellArgs: ['-c'] });
    const pty = new NodePtyExecutor({ sandbox: runtime, shellArgs: ['-c'] });
    const run = async (sessionKey?: string): Promise<string> => {
      const sink = new FakeSink();
      await executor.run({ command: probeLine, cwd: ws, timeoutMs: 60_000, sink, ...(sessionKey ? { sessionKey } : {}) });
      return sink.text();
    };
    try {
      // Nothing warmed: the first persistent shell and a first background job start while the
      // shared namespace does (they wait for it rather than bridge without the filter).
      const [firstShell, firstJob] = await Promise.all([run('session-a'), run('session-b:async:1')]);
      await assertConfined('persistent shell, first call', firstShell);
      await assertConfined('background job, first call', firstJob);
      await assertConfined('persistent shell, later call', await run('session-a'));
      await assertConfined('one-shot', await run());
      const sink = new FakeSink();
      await pty.start({ command: probeLine, cwd: ws, timeoutMs: 60_000, sink }).result;
      await assertConfined('PTY', sink.text());
      const bridge = new BridgeProcess({
        params: { command: probe as string, args: probeLine.split(' ').slice(1), cwd: ws },
        shell: { path: '/bin/bash', args: ['-c'] },
        baseEnv: process.env,
        defaultCwd: ws,
        mark: { name: 'AGENT_BASH_TEST_MARK', value: 'confine' },
        sandbox: runtime,
      });
      await bridge.exited;
      await assertConfined('bridge process', bridge.output().output);
      // The first calls did get the shared network (they waited; they did not go without).
      const netOf = async (sessionKey?: string): Promise<string> => {
        const s = new FakeSink();
        await executor.run({ command: 'readlink /proc/self/ns/net', cwd: ws, timeoutMs: 60_000, sink: s, ...(sessionKey ? { sessionKey } : {}) });
        return s.text();
      };
      assert.equal(await netOf('session-a'), await netOf());
    } finally {
      await Promise.allSettled([executor.dispose(), pty.dispose()]);
      runtime.dispose();
    }
  });

  it("the CLI's run and the stdio MCP server's first call run under the filter", async function () {
    const cli = spawnSync(process.execPath, [CLI, 'run', '--yes', '--sandbox', 'on', '--cwd', ws, '--', probeLine], { cwd: ws, encoding: 'utf8', timeout: 180_000 });
    await assertConfined('CLI run', cli.stdout);
    const home = path.join(root, 'home');
    mkdirSync(home, { recursive: true });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--yes', '--sandbox', 'on', '--cwd', ws],
      cwd: ws,
      env: { ...process.env, HOME: home } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'confine-test', version: '1.0.0' });
    await client.connect(transport, { timeout: 180_000 });
    try {
      const r = (await client.callTool({ name: 'bash', arguments: { command: probeLine } }, undefined, { timeout: 180_000 })) as { content: Array<{ text: string }> };
      await assertConfined('MCP stdio, first call', r.content.map((c) => c.text).join('\n'));
    } finally {
      await client.close();
    }
  });

  it('bubblewrap sets itself up before the filter applies; the filter then refuses mounts and namespaces even to a process that holds every capability of its user namespace', function () {
    const filterFile = path.join(root, 'filter.bpf');
    writeFileSync(filterFile, seccompFilter());
    const mnt = path.join(root, 'mnt');
    mkdirSync(mnt, { recursive: true });
    const names = [`mount=${mnt}`, 'umount2', 'pivot_root', 'fsopen', 'open_tree', 'unshare_ns', 'setns'];
    const runWith = (filtered: boolean): Record<string, string> => {
      const fd = openSync(filterFile, 'r');
      try {
        const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-user', '--unshare-uts', '--unshare-pid', '--cap-add', 'ALL', ...(filtered ? ['--seccomp', '3'] : []), '--', probe as string, ...names];
        const r = spawnSync('bwrap', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', fd] });
        assert.equal(r.status, 0, r.stderr);
        return probeOutcomes(r.stdout);
      } finally {
        closeSync(fd);
      }
    };
    const keys = names.map((n) => n.split('=')[0] as string);
    // The judge: without the filter the calls work (as root every one does; an unprivileged user's
    // bubblewrap cannot grant the capabilities, and then the calls prove nothing here).
    const unfiltered = runWith(false);
    const judged = keys.filter((k) => unfiltered[k] === 'ok');
    if (process.getuid?.() === 0) assert.deepEqual(judged, keys, JSON.stringify(unfiltered));
    if (judged.length === 0) this.skip();
    const filtered = runWith(true);
    assert.deepEqual(Object.fromEntries(judged.map((k) => [k, filtered[k]])), Object.fromEntries(judged.map((k) => [k, 'EPERM'])));
  });

  it('a user namespace also as root, its own IPC, UTS and cgroup namespaces, /proc/sys read-only, a session of its own', async () => {
    const runtime = new SandboxRuntime({ settings: () => settings(), workspaceRoots: () => [ws] });
    const executor = new LocalShellExecutor({ sandbox: runtime, shellArgs: ['-c'], persistent: false });
    try {
      const sink = new FakeSink();
      const r = await executor.run({
        command: [
          'for n in user ipc uts cgroup; do readlink /proc/self/ns/$n; done',
          'id -u',
          'v=$(cat /proc/sys/kernel/core_pattern); (printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern) 2>&1 | sed "s/.*: //"',
          // A session outside the PID namespace reads as 0; bubblewrap's own (its init leads it) does not.
          'read -r _ _ _ _ _ sid _ < /proc/self/stat; [ "$sid" != 0 ] && echo own-session',
          '(: </dev/tty) 2>/dev/null || echo no-terminal',
        ].join('\n'),
        cwd: ws,
        timeoutMs: 60_000,
        sink,
      });
      assert.equal(r.exitCode, 0, sink.text());
      const lines = sink.text().split('\n');
      for (const [i, n] of ['user', 'ipc', 'uts', 'cgroup'].entries()) assert.notEqual(lines[i], readlinkSync(`/proc/self/ns/${n}`), `${n} namespace is the host's`);
      // The caller's uid inside (root stays 0, mapped to the caller outside).
      assert.equal(lines[4], String(process.getuid?.()));
      assert.equal(lines[5], 'Read-only file system');
      assert.equal(lines[6], 'own-session');
      assert.equal(lines[7], 'no-terminal');
    } finally {
      await executor.dispose();
      runtime.dispose();
    }
  });

  it('a descriptor the host inherited without close-on-exec does not reach the command (it does with the sandbox off)', async () => {
    const target = path.join(root, 'fd200');
    writeFileSync(target, '');
    const exec = path.resolve(__dirname, '../../../../src/exec/localExecutor.js');
    const sbx = path.resolve(__dirname, '../../../../src/exec/sandbox/sandboxRuntime.js');
    const code = `
      const { LocalShellExecutor } = require(${JSON.stringify(exec)});
      const { SandboxRuntime } = require(${JSON.stringify(sbx)});
      const run = async (enabled, sessionKey) => {
        const rt = new SandboxRuntime({ settings: () => ({ enabled, autoApprove: false, allowWrite: [], denyRead: [], denyWrite: [], allowedDomains: [] }), workspaceRoots: () => [${JSON.stringify(ws)}] });
        const ex = new LocalShellExecutor({ sandbox: rt, shellArgs: ['-c'] });
        let out = '';
        await ex.run({ command: 'echo ' + enabled + '-' + (sessionKey ? 'persistent' : 'one-shot') + ' >&200 || echo refused', cwd: ${JSON.stringify(ws)}, timeoutMs: 60000, ...(sessionKey ? { sessionKey } : {}),
          sink: { push(c) { out += String(c); }, async dump() { return {}; }, dispose() {} } });
        await ex.dispose(); rt.dispose();
        process.stdout.write(enabled + ':' + out);
      };
      (async () => { await run('on'); await run('on', 'k'); await run('off'); })();`;
    const fd = openSync(target, 'w');
    const stdio: Array<'ignore' | 'pipe' | number> = Array.from({ length: 201 }, () => 'ignore');
    stdio[1] = 'pipe';
    stdio[200] = fd;
    const child = spawn(process.execPath, ['-e', code], { stdio });
    closeSync(fd);
    let out = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise((r) => child.once('exit', r));
    assert.match(out, /^on:.*Bad file descriptor\nrefused\non:.*Bad file descriptor\nrefused\noff:$/);
    assert.equal(readFileSync(target, 'utf8'), 'off-one-shot\n');
  });

  it("the host's environment stays outside but for the allowlist, the call's own env and agentBash.sandbox.env.allow", async () => {
    const host = {
      PATH: `${process.env.PATH ?? '/usr/bin:/bin'}:/opt/agent-bash-marker/bin`,
      HOME: os.homedir(),
      LANG: 'C.UTF-8',
      LC_TIME: 'C',
      TZ: 'UTC',
      GITHUB_TOKEN: 'ghp_secret',
      SSH_AUTH_SOCK: '/tmp/agent.sock',
      VSCODE_IPC_HOOK_CLI: '/tmp/vscode-ipc.sock',
      VSCODE_GIT_IPC_HANDLE: '/tmp/git-ipc.sock',
      AWS_SECRET_ACCESS_KEY: 'aws',
      MY_TOOL_HOME: '/opt/tool',
      AGENT_BASH_SESSION: 'sess',
    };
    let allow: string[] = [];
    const runtime = new SandboxRuntime({ settings: () => settings({ envAllow: allow }), workspaceRoots: () => [ws] });
    const executor = new LocalShellExecutor({ sandbox: runtime, shellArgs: ['-c'], baseEnv: host });
    const names = 'PATH HOME LANG LC_TIME TZ GITHUB_TOKEN SSH_AUTH_SOCK VSCODE_IPC_HOOK_CLI VSCODE_GIT_IPC_HANDLE AWS_SECRET_ACCESS_KEY MY_TOOL_HOME AGENT_BASH_SESSION PAGER GIT_CONFIG_COUNT CALL_VAR';
    const show = `for n in ${names}; do printf '%s=%s\\n' "$n" "\${!n-<unset>}"; done`;
    const run = async (sessionKey?: string): Promise<Record<string, string>> => {
      const sink = new FakeSink();
      await executor.run({ command: show, cwd: ws, timeoutMs: 60_000, sink, env: { CALL_VAR: 'given' }, ...(sessionKey ? { sessionKey } : {}) });
      return Object.fromEntries(sink.text().trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    };
    try {
      for (const got of [await run(), await run('persistent')]) {
        // The machine's shell start-up (pyenv, say) may rearrange it; the host's PATH passed in.
        assert.ok(got.PATH.split(':').includes('/opt/agent-bash-marker/bin'), got.PATH);
        assert.deepEqual(got, {
          PATH: got.PATH,
          HOME: host.HOME,
          LANG: 'C.UTF-8',
          LC_TIME: 'C',
          TZ: 'UTC',
          GITHUB_TOKEN: '<unset>',
          SSH_AUTH_SOCK: '<unset>',
          VSCODE_IPC_HOOK_CLI: '<unset>',
          VSCODE_GIT_IPC_HANDLE: '<unset>',
          AWS_SECRET_ACCESS_KEY: '<unset>',
          MY_TOOL_HOME: '<unset>',
          AGENT_BASH_SESSION: 'sess',
          PAGER: 'cat',
          GIT_CONFIG_COUNT: '5',
          CALL_VAR: 'given',
        });
      }
      allow = ['GITHUB_TOKEN', 'MY_TOOL_*'];
      const got = await run();
      assert.equal(got.GITHUB_TOKEN, 'ghp_secret');
      assert.equal(got.MY_TOOL_HOME, '/opt/tool');
      assert.equal(got.SSH_AUTH_SOCK, '<unset>');
    } finally {
      await executor.dispose();
      runtime.dispose();
    }
  });

  it('nothing in the environment steers what runs on the host before the sandbox (BASH_ENV, exported functions, SHELLOPTS)', async () => {
    const canary = path.join(root, 'host-canary');
    const script = path.join(root, 'bash-env.sh');
    writeFileSync(script, `echo sourced >> ${canary}\n`);
    const runtime = new SandboxRuntime({ settings: () => settings(), workspaceRoots: () => [ws] });
    const executor = new LocalShellExecutor({ sandbox: runtime, shellArgs: ['-c'] });
    try {
      const env = { BASH_ENV: script, 'BASH_FUNC_exec%%': `() { echo function >> ${canary}; }`, 'BASH_FUNC_shift%%': `() { echo function >> ${canary}; }`, SHELLOPTS: 'xtrace' };
      const sink = new FakeSink();
      const r = await executor.run({ command: 'echo ran', cwd: ws, timeoutMs: 60_000, sink, env });
      assert.equal(r.exitCode, 0, sink.text());
      assert.match(sink.text(), /ran\n$/);
      // Inside, the command's own bash may try them (and cannot write there); outside nothing did.
      assert.equal(existsSync(canary), false);
    } finally {
      await executor.dispose();
      runtime.dispose();
    }
  });

  it('everyday tools still work under the filter: node (child processes), python, git, HTTP to the proxy', async () => {
    const runtime = new SandboxRuntime({ settings: () => settings(), workspaceRoots: () => [ws] });
    const executor = new LocalShellExecutor({ sandbox: runtime, shellArgs: ['-c'] });
    try {
      const sink = new FakeSink();
      const r = await executor.run({
        command: [
          `node -e 'console.log(require("child_process").execFileSync("echo", ["node-child"]).toString().trim())'`,
          `python3 -c 'import subprocess; print(subprocess.run(["echo", "python-child"], capture_output=True, text=True).stdout.strip())'`,
          'git init -q repo && git -C repo -c user.name=t -c user.email=t@t commit -q --allow-empty -m m && git -C repo log --format=%s',
          // The proxy answers (and refuses the unlisted host): TCP to it works under the filter.
          `curl -sS -o /dev/null -w '%{http_code}\\n' http://refused-host.invalid/`,
          // ptrace is refused: strace cannot trace (where strace is installed at all).
          '{ ! command -v strace >/dev/null || ! strace -o /dev/null true 2>/dev/null; }',
        ].join(' && '),
        cwd: ws,
        timeoutMs: 120_000,
        sink,
      });
      assert.match(sink.text(), /^node-child\npython-child\nm\n(\[sandbox\] .*\n)?403\n$/);
      assert.equal(r.exitCode, 0);
    } finally {
      await executor.dispose();
      runtime.dispose();
    }
  });
});
