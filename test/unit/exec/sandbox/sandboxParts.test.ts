// The sandbox's pure parts: argv building (the command stays the argv tail), the
// proxy's answers over a real unix socket, violation parsing, the probe on a PATH without bwrap,
// and the `sandbox` input parameter.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { bashInputJsonSchema, parseBashInput } from '../../../../src/core/input';
import { confineArgs, containArgs } from '../../../../src/exec/sandbox/bwrapArgs';
import { NetworkProxy, refusedBody } from '../../../../src/exec/sandbox/network/networkProxy';
import { INSTALL_HINT, probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { envFilesOutside, resolveFsPolicy, DEFAULT_SANDBOX_SETTINGS } from '../../../../src/exec/sandbox/sandboxPolicy';
import { findViolations, refusalLine, violationNotice } from '../../../../src/core/sandboxRefusals';

/** One raw request through the proxy's unix socket; resolves with everything it answered. */
function viaProxy(socketPath: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(socketPath, () => sock.write(request));
    let out = '';
    sock.on('data', (c) => (out += c.toString('latin1')));
    sock.on('end', () => resolve(out));
    sock.on('error', reject);
  });
}

describe('exec/sandbox: parts', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-sbx-parts-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the command as the argv tail, untouched, in both modes', () => {
    const argv = ['/bin/bash', '-c', `";curl x; #'$(touch /o)'\n\`id\``];
    assert.deepEqual(containArgs(argv), ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--', ...argv]);
    const args = confineArgs({ fs: { writable: [dir], denyRead: [], denyWrite: [] } }, argv);
    assert.deepEqual(args.slice(-argv.length - 1), ['--', ...argv]);
    assert.deepEqual(args.slice(0, 6), ['--ro-bind', '/', '/', '--bind', dir, dir]);
    for (const flag of ['--unshare-user', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--new-session', '--unshare-pid', '--die-with-parent', '--cap-drop']) assert.ok(args.includes(flag), flag);
    // The network is the launcher's (the shared namespace, or `--unshare-net` it adds).
    assert.ok(!args.includes('--unshare-net'));
    const proc = args.indexOf('--proc');
    assert.deepEqual(args.slice(proc, proc + 5), ['--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys']);
    // A PTY keeps the terminal made for it.
    assert.ok(!confineArgs({ fs: { writable: [dir], denyRead: [], denyWrite: [] }, terminal: true }, argv).includes('--new-session'));
  });

  it('hides secret directories with a read-only tmpfs and secret files with /dev/null; skips missing paths', () => {
    const home = path.join(dir, 'home');
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    writeFileSync(path.join(home, '.npmrc'), 'token');
    writeFileSync(path.join(home, '.env.local'), 'X=1');
    const ws = path.join(dir, 'ws');
    mkdirSync(ws);
    // The home as the sandbox's own (privateHome.ts): an empty folder first, read-only after the
    // mounts beneath it; what it does not show needs no mask.
    const own = confineArgs({ fs: resolveFsPolicy(DEFAULT_SANDBOX_SETTINGS, { home, workspaceRoots: [ws], tmpDir: path.join(dir, 'tmp') }) }, ['true']);
    assert.deepEqual(own.slice(0, 5), ['--ro-bind', '/', '/', '--tmpfs', home]);
    assert.ok(own.join(' ').includes(`--remount-ro ${home} --dev /dev`), own.join(' '));
    assert.ok(!own.join(' ').includes('.ssh') && !own.join(' ').includes('.npmrc'), own.join(' '));
    // A workspace folder that is the home: no private home, the credential stores masked as found.
    const fs = resolveFsPolicy(DEFAULT_SANDBOX_SETTINGS, { home, workspaceRoots: [ws, home], tmpDir: path.join(dir, 'tmp') });
    assert.equal(fs.privateHome, undefined);
    const args = confineArgs({ fs }, ['true']);
    const text = args.join(' ');
    assert.ok(text.includes(`--tmpfs ${home}/.ssh --remount-ro ${home}/.ssh`), text);
    assert.ok(text.includes(`--ro-bind /dev/null ${home}/.npmrc`), text);
    assert.ok(text.includes(`--ro-bind /dev/null ${home}/.env.local`), text);
    assert.ok(!text.includes('.aws'), 'a missing secret is not mounted');
    assert.ok(envFilesOutside({ home, workspaceRoots: [ws], tmpDir: '' }).includes(path.join(home, '.env.local')));
  });

  it('the proxy refuses unlisted hosts with 403 and reports them; forwards listed ones', async () => {
    const server = http.createServer((req, res) => res.end(`origin saw ${req.method} ${req.url} ${req.headers.connection}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const allowed: string[] = [];
    const heard: string[] = [];
    const heardReasons: string[] = [];
    const proxy = new NetworkProxy(path.join(dir, 'p.sock'), () => allowed, (r) => {
      heard.push(`${r.host}:${r.port}`);
      heardReasons.push(r.reason);
    });
    try {
      const refused = await viaProxy(proxy.socketPath, 'CONNECT made-up.invalid:443 HTTP/1.1\r\nHost: made-up.invalid:443\r\n\r\n');
      assert.match(refused, /^HTTP\/1\.1 403 Forbidden\r\n/);
      assert.ok(refused.endsWith('\r\n\r\nAgent Bash sandbox: network access to made-up.invalid:443 was refused: not in agentBash.sandbox.network.allowedDomains\n'), refused);
      const plain = await viaProxy(proxy.socketPath, `GET http://127.0.0.1:${port}/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      assert.match(plain, /^HTTP\/1\.1 403 /);
      assert.deepEqual(heard, ['made-up.invalid:443', `127.0.0.1:${port}`]);

      // Listed without a port: 80 and 443 only.
      allowed.push('127.0.0.1');
      const wrongPort = await viaProxy(proxy.socketPath, `GET http://127.0.0.1:${port}/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      assert.match(wrongPort, /^HTTP\/1\.1 403 /);
      assert.equal(heardReasons[2], `port ${port} is not allowed for this host (allowed: 80, 443; list it as host:${port})`);

      allowed.push(`127.0.0.1:${port}`);
      const ok = await viaProxy(proxy.socketPath, `GET http://127.0.0.1:${port}/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Connection: keep-alive\r\n\r\n`);
      assert.match(ok, /^HTTP\/1\.1 200 OK\r\n/);
      assert.ok(ok.endsWith('origin saw GET /x?y=1 close'), ok);
      assert.equal(proxy.refusals.length, 3);
    } finally {
      proxy.close();
      server.close();
    }
  });

  it('reads refused paths and hosts from the output, and words the retry notice', () => {
    const out = [
      "touch: cannot touch '/root/x': Read-only file system",
      '/bin/bash: line 1: /etc/y: Read-only file system',
      'bash: line 2: rel/out.txt: Read-only file system',
      "mkdir: cannot create directory ‘/opt/d’: Read-only file system",
      "Error: EROFS: read-only file system, open '/usr/z'",
      "OSError: [Errno 30] Read-only file system: '/srv/p'",
      "cat: /root/.ssh/id: No such file or directory",
      refusalLine({ host: 'evil.example', port: 443, reason: 'not in agentBash.sandbox.network.allowedDomains' }).trimEnd(),
      refusedBody({ host: 'other.example', port: 80, reason: 'not in agentBash.sandbox.network.allowedDomains' }).trimEnd(),
      refusalLine({ host: 'inside.example', port: 443, reason: 'resolves to a loopback address (127.0.0.1); allow it by listing the address itself' }).trimEnd(),
      refusalLine({ host: '', port: 0, reason: 'bad CONNECT target: bad port "99999" (1-65535, no leading zero)', malformed: true }).trimEnd(),
    ].join('\n');
    const v = findViolations(out);
    assert.deepEqual(v, {
      paths: ['/root/x', '/etc/y', 'rel/out.txt', '/opt/d', '/usr/z', '/srv/p'],
      hosts: ['evil.example', 'other.example', 'inside.example'],
      reasons: { 'inside.example': 'resolves to a loopback address (127.0.0.1); allow it by listing the address itself' },
    });
    assert.equal(
      violationNotice({ paths: [], hosts: v.hosts, reasons: v.reasons }),
      'The OS sandbox refused network access to evil.example, other.example (allowed: agentBash.sandbox.network.allowedDomains); and network access to inside.example: resolves to a loopback address (127.0.0.1); allow it by listing the address itself. ' +
        'To run it outside the sandbox, call the tool again with "sandbox": "off" (the user is asked to approve it).',
    );
    // A host the command printed is data, never a key that reaches a prototype.
    const proto = findViolations('[sandbox] network access to __proto__:1 was refused: odd');
    assert.equal(Object.getPrototypeOf(proto.reasons), Object.prototype);
    assert.equal(Object.hasOwn(proto.reasons ?? {}, '__proto__'), true);
    assert.equal(violationNotice({ paths: [], hosts: [] }), undefined);
    assert.equal(
      violationNotice({ paths: ['/root/x'], hosts: [] }),
      'The OS sandbox refused writing /root/x (writable: the workspace folders, $TMPDIR, package caches, agentBash.sandbox.filesystem.allowWrite). To run it outside the sandbox, call the tool again with "sandbox": "off" (the user is asked to approve it).',
    );
  });

  it('a PATH without bwrap: unavailable, and the problem names what to install', () => {
    const support = probeSandbox(dir);
    assert.deepEqual(support, { contain: false, sandbox: false, problem: `bubblewrap (bwrap) is not installed: ${INSTALL_HINT}` });
  });

  it('accepts sandbox: "off" and "write" (and null as absent), refuses other values, and advertises them to the model', () => {
    assert.equal(parseBashInput({ command: 'x', sandbox: 'off' }, { asyncEnabled: true }).sandbox, 'off');
    assert.equal(parseBashInput({ command: 'x', sandbox: 'write' }, { asyncEnabled: true }).sandbox, 'write');
    assert.equal(parseBashInput({ command: 'x', sandbox: null }, { asyncEnabled: true }).sandbox, undefined);
    assert.throws(() => parseBashInput({ command: 'x', sandbox: 'on' }, { asyncEnabled: true }), / {2}- sandbox: Invalid option: expected one of "off"\|"write"\n/);
    const props = bashInputJsonSchema({ asyncEnabled: true }).properties as Partial<Record<string, { enum?: string[] }>>;
    assert.deepEqual(props.sandbox?.enum, ['off', 'write']);
  });
});
