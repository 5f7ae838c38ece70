// The sandbox's proxy end to end over its real unix socket, against a host service that records
// every contact (the canary, on 127.0.0.1 and ::1): no spelling of a target, no resolver answer and
// no header reaches it; a literally listed loopback address (127.0.0.2) still serves. Then 10,000
// malformed requests, after which the same process still serves a good request. Loopback only: the
// injected resolver answers loopback names, the allow lists reach nothing else.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { NetworkProxy, type Lookup, type Refusal } from '../../../../src/exec/sandbox/network/networkProxy';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';

/** One raw request (bytes) through the proxy's unix socket; resolves with all it answered. */
function viaProxy(socketPath: string, request: string | Buffer, then?: (sock: net.Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(socketPath, () => {
      sock.write(request);
      then?.(sock);
    });
    let out = '';
    sock.on('data', (c) => (out += c.toString('latin1')));
    sock.on('close', () => resolve(out));
    sock.on('error', () => undefined);
  });
}

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** A deterministic generator (xorshift32): the same 10,000 requests every run. */
function prng(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

describe('exec/sandbox: the proxy against an attacker', function () {
  this.timeout(120_000);
  let dir: string;
  let canaryHits: string[];
  let canary4: net.Server;
  let canary6: net.Server | undefined;
  let good: http.Server;
  let goodSeen: string[];
  let pa: number;
  let pa6: number;
  let pb: number;
  let proxy: NetworkProxy;
  let refusals: Refusal[];
  let allowed: string[];

  const names: Record<string, string[]> = {};
  const lookup: Lookup = async (host) => {
    const addresses = Object.hasOwn(names, host) ? names[host] : undefined;
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
  };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-proxy-attacks-'));
    canaryHits = [];
    canary4 = net.createServer((s) => {
      canaryHits.push('127.0.0.1');
      s.destroy();
    });
    pa = await listen(canary4, '127.0.0.1');
    try {
      canary6 = net.createServer((s) => {
        canaryHits.push('::1');
        s.destroy();
      });
      pa6 = await listen(canary6, '::1');
    } catch {
      canary6 = undefined;
      pa6 = pa;
    }
    goodSeen = [];
    good = http.createServer((req, res) => {
      goodSeen.push(`${req.method} ${req.url} host=${req.headers.host} connection=${req.headers.connection}`);
      // A body far larger than any socket buffer: the proxy must hand all of it on before it closes.
      if (req.url === '/big') res.end(Buffer.alloc(8 * 1024 * 1024, 'b'));
      else res.end('good service\n');
    });
    pb = await listen(good, '127.0.0.2');
    Object.assign(names, {
      'evil.example.com': ['127.0.0.1'],
      'v6.example.com': ['::1'],
      'mapped.example.com': ['::ffff:127.0.0.1'],
      'meta.example.com': ['169.254.169.254'],
      'private.example.com': ['10.0.0.1'],
      // A public address first, loopback second: refused before anything is dialled.
      'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
      'good.example.com': ['127.0.0.2'],
    });
    allowed = ['*.example.com', `*.example.com:${pa}`, `*.example.com:${pa6}`, `*.example.com:${pb}`, `127.0.0.2:${pb}`];
    refusals = [];
    proxy = new NetworkProxy(path.join(dir, 'p.sock'), () => allowed, (r) => refusals.push(r), { lookup });
  });

  after(() => {
    proxy.close();
    canary4.close();
    canary6?.close();
    good.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const statusOf = (answer: string): string => answer.slice(0, answer.indexOf('\r\n'));
  const bodyOf = (answer: string): string => answer.slice(answer.indexOf('\r\n\r\n') + 4);

  it('a listed literal loopback address serves, through CONNECT and plain HTTP (Host rewritten, hop-by-hop headers gone)', async () => {
    const tunnel = await viaProxy(proxy.socketPath, `CONNECT good.example.com:${pb} HTTP/1.1\r\nHost: x\r\n\r\nGET /t HTTP/1.1\r\nHost: good\r\nConnection: close\r\n\r\n`);
    assert.match(tunnel, /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    assert.ok(tunnel.endsWith('good service\n'), tunnel);
    const plain = await viaProxy(proxy.socketPath, `GET http://GOOD.example.com.:${pb}/p?q HTTP/1.1\r\nHost: good.example.com:${pb}\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\n\r\n`);
    assert.equal(statusOf(plain), 'HTTP/1.1 200 OK');
    assert.deepEqual(goodSeen.slice(-2), ['GET /t host=good connection=close', `GET /p?q host=good.example.com:${pb} connection=close`]);
    const big = await viaProxy(proxy.socketPath, `CONNECT good.example.com:${pb} HTTP/1.1\r\n\r\nGET /big HTTP/1.1\r\nHost: good\r\nConnection: close\r\n\r\n`);
    assert.equal(bodyOf(bodyOf(big)).length, 8 * 1024 * 1024);
    assert.deepEqual(canaryHits, []);
  });

  it('no spelling, resolver answer or header reaches the host loopback service', async () => {
    const before = refusals.length;
    const connect = (target: string): string => `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`;
    const cases: Array<[request: string, status: string, reason: RegExp]> = [
      [connect(`127.0.0.1\0.example.com:${pa}`), 'HTTP/1.1 400 Bad Request', /control byte in request head/],
      [connect(`evil.example.com:${pa}`), 'HTTP/1.1 403 Forbidden', /evil\.example\.com:\d+ was refused: resolves to a loopback address \(127\.0\.0\.1\)/],
      [connect(`evil.example.com.:${pa}`), 'HTTP/1.1 403 Forbidden', /resolves to a loopback address/],
      [connect(`EVIL.EXAMPLE.COM:${pa}`), 'HTTP/1.1 403 Forbidden', /resolves to a loopback address/],
      [connect(`v6.example.com:${pa6}`), 'HTTP/1.1 403 Forbidden', /resolves to a loopback address \(::1\)/],
      [connect(`mapped.example.com:${pa}`), 'HTTP/1.1 403 Forbidden', /resolves to a loopback address \(::ffff:127\.0\.0\.1\)/],
      [connect(`mixed.example.com:${pa}`), 'HTTP/1.1 403 Forbidden', /resolves to a loopback address \(127\.0\.0\.1\)/],
      [connect(`meta.example.com:443`), 'HTTP/1.1 403 Forbidden', /resolves to a cloud metadata address \(169\.254\.169\.254\)/],
      [connect(`private.example.com:443`), 'HTTP/1.1 403 Forbidden', /resolves to a private address \(10\.0\.0\.1\)/],
      [connect(`good.example.com:${pa}`), 'HTTP/1.1 403 Forbidden', /resolves to a loopback address \(127\.0\.0\.2\); allow it by listing the address itself/],
      [connect(`127.0.0.1:${pa}`), 'HTTP/1.1 403 Forbidden', /not in agentBash\.sandbox\.network\.allowedDomains/],
      [connect(`127.0.0.1.:${pa}`), 'HTTP/1.1 400 Bad Request', /is not an IPv4 address in dotted decimal/],
      [connect(`[::1]:${pa6}`), 'HTTP/1.1 403 Forbidden', /not in agentBash/],
      [connect(`[::ffff:127.0.0.1]:${pa}`), 'HTTP/1.1 403 Forbidden', /not in agentBash/],
      [connect(`[::ffff:127.0.0.2]:${pb}`), 'HTTP/1.1 403 Forbidden', /not in agentBash/],
      [connect(`2130706433:${pa}`), 'HTTP/1.1 400 Bad Request', /not an IPv4 address in dotted decimal/],
      [connect(`0177.0.0.1:${pa}`), 'HTTP/1.1 400 Bad Request', /not an IPv4 address in dotted decimal/],
      [connect(`0x7f.1:${pa}`), 'HTTP/1.1 400 Bad Request', /not an IPv4 address in dotted decimal/],
      [connect(`0x7f.0.0.1.example.com:${pa}`), 'HTTP/1.1 502 Bad Gateway', /does not resolve \(ENOTFOUND\)/],
      [connect(`evil%2eexample.com:${pa}`), 'HTTP/1.1 400 Bad Request', /character "%" not allowed/],
      [connect(`127%2e0%2e0%2e1.example.com:${pa}`), 'HTTP/1.1 400 Bad Request', /character "%" not allowed/],
      [connect(`evil.example.com@127.0.0.1:${pa}`), 'HTTP/1.1 400 Bad Request', /character "@" not allowed/],
      [connect(`127.0.0.1:${pa}@good.example.com:${pb}`), 'HTTP/1.1 400 Bad Request', /extra colon/],
      [connect(`127.0.0.1:${pa}#.example.com:443`), 'HTTP/1.1 400 Bad Request', /extra colon/],
      [connect(`good.example.com:${pb}:${pa}`), 'HTTP/1.1 400 Bad Request', /extra colon/],
      [connect(`evil.example.com:99999`), 'HTTP/1.1 400 Bad Request', /bad port "99999"/],
      [connect(`evil.example.com:-1`), 'HTTP/1.1 400 Bad Request', /bad port "-1"/],
      [`CONNECT 127.0.0.1 :${pa} HTTP/1.1\r\n\r\n`, 'HTTP/1.1 400 Bad Request', /bad request line/],
      [`CONNECT good.example.com:${pb}\r\nX: 127.0.0.1:${pa} HTTP/1.1\r\n\r\n`, 'HTTP/1.1 400 Bad Request', /bad request line/],
      [`CONNECT evil.example.com:${pa}\nHost: x HTTP/1.1\r\n\r\n`, 'HTTP/1.1 400 Bad Request', /control byte/],
      [`GET http://evil.example.com:${pa}/ HTTP/1.1\r\nHost: evil.example.com:${pa}\r\n\r\n`, 'HTTP/1.1 403 Forbidden', /resolves to a loopback address/],
      [`GET http://good.example.com:${pb}/ HTTP/1.1\r\nHost: 127.0.0.1:${pa}\r\n\r\n`, 'HTTP/1.1 400 Bad Request', /Host header "127\.0\.0\.1:\d+" does not match the request target good\.example\.com:\d+/],
      [`GET http://127.0.0.1:${pa}@good.example.com:${pb}/ HTTP/1.1\r\nHost: good.example.com:${pb}\r\n\r\n`, 'HTTP/1.1 400 Bad Request', /user information in URL/],
      [`GET http://good.example.com:${pb}\\@127.0.0.1:${pa}/ HTTP/1.1\r\nHost: good.example.com:${pb}\r\n\r\n`, 'HTTP/1.1 400 Bad Request', /user information in URL/],
      [`GET http://127.0.0.1:${pa}/ HTTP/1.1\r\nHost: 127.0.0.1:${pa}\r\n\r\n`, 'HTTP/1.1 403 Forbidden', /not in agentBash/],
      [`GET /x HTTP/1.1\r\nHost: 127.0.0.1:${pa}\r\n\r\n`, 'HTTP/1.1 400 Bad Request', /not an absolute http:\/\/ URL/],
    ];
    for (const [request, status, reason] of cases) {
      const answer = await viaProxy(proxy.socketPath, request);
      assert.equal(statusOf(answer), status, JSON.stringify(request));
      assert.match(bodyOf(answer), reason, JSON.stringify(request));
    }
    // A name from /etc/hosts, through the system resolver.
    const system = new NetworkProxy(path.join(dir, 'system.sock'), () => [`localhost:${pa}`, `localhost:${pa6}`], undefined);
    try {
      for (const port of new Set([pa, pa6])) {
        const answer = await viaProxy(system.socketPath, `CONNECT localhost:${port} HTTP/1.1\r\n\r\n`);
        assert.equal(statusOf(answer), 'HTTP/1.1 403 Forbidden', answer);
        assert.match(bodyOf(answer), /^Agent Bash sandbox: network access to localhost:\d+ was refused: resolves to a loopback address \((127\.0\.0\.1|::1)\); allow it by listing the address itself\n$/);
      }
    } finally {
      system.close();
    }
    assert.deepEqual(canaryHits, []);
    // Every refusal but the unresolvable name was reported, with its reason.
    assert.equal(refusals.length - before, cases.length - 1);
    assert.ok(refusals.slice(before).every((r) => r.reason.length > 0));
  });

  it('10,000 malformed requests: nothing throws, the canary stays untouched, a good request is served after', async () => {
    const rand = prng(0x5eed1234);
    const pick = <T>(list: readonly T[]): T => list[rand(list.length)];
    const randomBytes = (n: number): Buffer => {
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) b[i] = rand(256);
      return b;
    };
    const ports = ['99999', '65536', '0', '-1', '', '1e3', '0x50', '443 ', '4'.repeat(40), String(pa), String(pb), String(pb), '80', 'NaN', '8.5', '\0', '%34%34%33'];
    const hosts = ['127.0.0.1', 'evil.example.com', 'good.example.com', '127.0.0.2', 'GOOD.example.com.', '[::1]', '[::1', '::1', '2130706433', 'a\0b.example.com', '', '@', 'x'.repeat(300), 'ex ample.com', '\u00ff.example.com', 'evil.example.com.', '[', ']'];
    const methods = ['CONNECT', 'GET', 'POST', 'connect', '', ' ', 'G\0T', 'X'.repeat(100)];
    const makeRequest = (): { bytes: Buffer; mode: 'end' | 'destroy' | 'half' } => {
      const kind = rand(6);
      let text: Buffer;
      if (kind === 0) text = randomBytes(rand(2048));
      else if (kind === 1) text = Buffer.from(`CONNECT ${pick(hosts)}:${pick(ports)} HTTP/1.1\r\n\r\n`, 'latin1');
      else if (kind === 2) text = Buffer.from(`${pick(methods)} http://${pick(hosts)}:${pick(ports)}/${randomBytes(rand(8)).toString('latin1')} HTTP/1.${rand(3)}\r\nHost: ${pick(hosts)}\r\n\r\n`, 'latin1');
      else if (kind === 3) text = Buffer.concat([Buffer.from(`CONNECT evil.example.com:${pa} HTTP/1.1\r\n`), randomBytes(rand(512)), Buffer.from('\r\n\r\n')]);
      // Huge heads: past the 64 KiB limit, once in a while.
      else if (kind === 4) text = rand(50) === 0 ? Buffer.from(`GET http://x/ HTTP/1.1\r\nX: ${'a'.repeat(70_000)}\r\n\r\n`) : Buffer.from(`GET http://x/ HTTP/1.1\r\n${'X: y\r\n'.repeat(rand(400))}\r\n`);
      else text = Buffer.from(`${pick(methods)} ${randomBytes(rand(64)).toString('latin1')} HTTP/1.1\r\n${rand(2) ? '\r\n' : ''}`, 'latin1');
      return { bytes: text, mode: pick(['end', 'end', 'destroy', 'half'] as const) };
    };
    const total = 10_000;
    let next = 0;
    let answered = 0;
    let timedOut = 0;
    const worker = async (): Promise<void> => {
      while (next < total) {
        next++;
        const { bytes, mode } = makeRequest();
        await new Promise<void>((resolve) => {
          const sock = net.connect(proxy.socketPath, () => {
            sock.write(bytes);
            if (mode === 'destroy') sock.destroy();
            else if (mode === 'half') sock.end();
            else sock.end();
          });
          sock.on('data', () => undefined);
          sock.once('data', () => answered++);
          sock.on('error', () => undefined);
          sock.on('close', () => resolve());
          // A request the proxy would wait on (an allowed tunnel kept open): ours to end.
          sock.setTimeout(5000, () => {
            timedOut++;
            sock.destroy();
          });
        });
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    assert.ok(answered > total / 2, `answered ${answered}, timed out ${timedOut}`);
    assert.deepEqual(canaryHits, []);
    // Every client is gone: so is every socket the proxy held for them (nothing leaks).
    const held = (proxy as unknown as { sockets: Set<net.Socket> }).sockets;
    for (let i = 0; i < 1000 && held.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(held.size, 0);
    const after = await viaProxy(proxy.socketPath, `GET http://good.example.com:${pb}/after HTTP/1.1\r\nHost: good.example.com:${pb}\r\n\r\n`);
    assert.equal(statusOf(after), 'HTTP/1.1 200 OK');
    assert.ok(after.endsWith('good service\n'));
  });

  it('a half-closed or silent client and a client gone mid-lookup leave the proxy serving', async () => {
    let release: (() => void) | undefined;
    names['slow.example.com'] = ['127.0.0.2'];
    const slowProxy = new NetworkProxy(path.join(dir, 'slow.sock'), () => ['slow.example.com', `127.0.0.2:${pb}`], undefined, {
      lookup: (host) =>
        new Promise((resolve) => {
          release = () => resolve([{ address: names[host][0], family: 4 }]);
        }),
    });
    try {
      // The client leaves while its name resolves; the answer then finds no one.
      await viaProxy(slowProxy.socketPath, `CONNECT slow.example.com:443 HTTP/1.1\r\n\r\n`, (s) => {
        const wait = setInterval(() => {
          if (!release) return;
          clearInterval(wait);
          s.destroy();
        }, 1);
      });
      release?.();
      const half = await viaProxy(proxy.socketPath, 'CONNECT evil.exam', (s) => s.end());
      assert.equal(half, '');
      // A whole request, then the client shuts its sending side: it still gets its answer.
      const shut = await viaProxy(proxy.socketPath, `GET http://127.0.0.2:${pb}/shut HTTP/1.1\r\nHost: 127.0.0.2:${pb}\r\n\r\n`, (s) => s.end());
      assert.equal(statusOf(shut), 'HTTP/1.1 200 OK');
      assert.ok(shut.endsWith('good service\n'));
      const refusedShut = await viaProxy(proxy.socketPath, `CONNECT 127.0.0.1:${pa} HTTP/1.1\r\n\r\n`, (s) => s.end());
      assert.equal(statusOf(refusedShut), 'HTTP/1.1 403 Forbidden');
      const ok = await viaProxy(proxy.socketPath, `GET http://127.0.0.2:${pb}/ HTTP/1.1\r\nHost: 127.0.0.2:${pb}\r\n\r\n`);
      assert.equal(statusOf(ok), 'HTTP/1.1 200 OK');
    } finally {
      slowProxy.close();
    }
    assert.deepEqual(canaryHits, []);
  });

  it('through the CLI: a sandboxed command sends what used to kill the host process; the CLI lives, reports each, and exits with the command', async function () {
    if (!probeSandbox().sandbox) this.skip();
    // Raw requests to the sandbox's proxy port, one connection each, then a word from the survivor.
    writeFileSync(
      path.join(dir, 'probe.js'),
      [
        "const net = require('net');",
        'const requests = ["CONNECT evil.example.com:99999 HTTP/1.1\\r\\n\\r\\n", "CONNECT 127.0.0.1\\0.example.com:443 HTTP/1.1\\r\\n\\r\\n", "CONNECT [::1:443 HTTP/1.1\\r\\n\\r\\n"];',
        'const one = (r) => new Promise((resolve) => {',
        "  const s = net.connect(3128, '127.0.0.1', () => s.write(r));",
        "  let out = '';",
        "  s.on('data', (d) => (out += d));",
        "  s.on('error', (e) => (out += 'error ' + e.code));",
        "  s.on('close', () => resolve(out.split('\\r\\n')[0]));",
        '});',
        "(async () => { for (const r of requests) console.log(await one(r)); console.log('still here'); })();",
      ].join('\n'),
    );
    const cli = path.resolve(__dirname, '../../../../src/cli.js');
    const child = spawn(process.execPath, [cli, 'run', '--yes', '--sandbox', 'on', '--cwd', dir, '--', 'node probe.js'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    assert.equal(code, 0, out);
    const lines = out.split('\n').filter((l) => l && !l.startsWith('Wall time') && !l.startsWith('full output'));
    assert.deepEqual(lines, [
      '[sandbox] a proxy request was refused: bad CONNECT target: bad port "99999" (1-65535, no leading zero)',
      'HTTP/1.1 400 Bad Request',
      '[sandbox] a proxy request was refused: control byte in request head: "CONNECT\\x20127.0.0.1\\x00.example.com:443\\x20HTTP/1.1"',
      'HTTP/1.1 400 Bad Request',
      '[sandbox] a proxy request was refused: bad CONNECT target: bad IPv6 literal in "[::1:443"',
      'HTTP/1.1 400 Bad Request',
      'still here',
    ]);
  });
});
