// The proxy's parsers as tables: request targets (CONNECT authority form, absolute http:// URLs),
// canonical hosts, allow entries with ports, request heads (Host must match, hop-by-hop headers
// stripped), and the address classifier.
import * as assert from 'node:assert/strict';
import { UsageError } from '../../../../../src/cli/cliArgs';
import { sandboxSettingsOf } from '../../../../../src/cli/run';
import { findViolations, refusalLine } from '../../../../../src/core/sandboxRefusals';
import { classifyAddress } from '../../../../../src/exec/sandbox/network/addressClass';
import { parseProxyRequest } from '../../../../../src/exec/sandbox/network/proxyRequest';
import {
  allowListRefusal,
  parseAbsoluteUrl,
  parseAllowEntry,
  parseAllowList,
  parseAuthority,
  type Target,
} from '../../../../../src/exec/sandbox/network/proxyTarget';

/** `ok host kind port` or `no <reason>`. */
function authority(text: string): string {
  const r = parseAuthority(text);
  return r.ok ? `ok ${r.value.host} ${r.value.kind} ${r.value.port}` : `no ${r.why}`;
}

describe('exec/sandbox: proxy target parser', () => {
  it('accepts canonical authority forms and canonicalises case, one trailing dot and IPv6 spelling', () => {
    const table: Array<[string, string]> = [
      ['example.com:443', 'ok example.com name 443'],
      ['EXAMPLE.Com:443', 'ok example.com name 443'],
      ['example.com.:443', 'ok example.com name 443'],
      ['a_b.example.com:8080', 'ok a_b.example.com name 8080'],
      ['xn--bcher-kva.de:443', 'ok xn--bcher-kva.de name 443'],
      ['localhost:1', 'ok localhost name 1'],
      ['1.2.3.4:65535', 'ok 1.2.3.4 ipv4 65535'],
      ['[::1]:443', 'ok ::1 ipv6 443'],
      ['[0:0:0:0:0:0:0:1]:443', 'ok ::1 ipv6 443'],
      ['[::FFFF:127.0.0.1]:80', 'ok ::ffff:7f00:1 ipv6 80'],
    ];
    for (const [input, want] of table) assert.equal(authority(input), want, JSON.stringify(input));
  });

  it('rejects control bytes, spaces, userinfo, percent-encoding, odd IPv4 spellings, bare IPv6 and bad ports', () => {
    const table: Array<[string, string]> = [
      ['127.0.0.1\0.example.com:443', 'no control byte or space in host "127.0.0.1\\x00.example.com"'],
      ['example.com\t:443', 'no control byte or space in host "example.com\\x09"'],
      ['evil@example.com:443', 'no character "@" not allowed in host "evil@example.com"'],
      ['example%2ecom:443', 'no character "%" not allowed in host "example%2ecom"'],
      ['127.0.0.1%2e:443', 'no character "%" not allowed in host "127.0.0.1%2e"'],
      ['ex/ample.com:443', 'no character "/" not allowed in host "ex/ample.com"'],
      ['example.com..:443', 'no empty label in host "example.com.."'],
      ['.example.com:443', 'no empty label in host ".example.com"'],
      ['a..b:443', 'no empty label in host "a..b"'],
      ['-a.example.com:443', 'no "-a.example.com" is not a valid host name'],
      ['xn--zz.example:443', 'no "xn--zz.example" is not a valid host name'],
      ['2130706433:80', 'no "2130706433" is not an IPv4 address in dotted decimal'],
      ['0177.0.0.1:80', 'no "0177.0.0.1" is not an IPv4 address in dotted decimal'],
      ['0x7f.1:80', 'no "0x7f.1" is not an IPv4 address in dotted decimal'],
      ['127.1:80', 'no "127.1" is not an IPv4 address in dotted decimal'],
      ['127.0.0.1.:80', 'no "127.0.0.1." is not an IPv4 address in dotted decimal'],
      ['256.0.0.1:80', 'no "256.0.0.1" is not an IPv4 address in dotted decimal'],
      ['example.0x7f:80', 'no "example.0x7f" is not an IPv4 address in dotted decimal'],
      ['::1:443', 'no IPv6 literal without brackets or extra colon in "::1:443"'],
      ['[::1%lo]:443', 'no bad IPv6 literal "[::1%lo]"'],
      ['[::1:443', 'no bad IPv6 literal in "[::1:443"'],
      ['[::1]x:443', 'no junk after IPv6 literal in "[::1]x:443"'],
      ['[127.0.0.1]:443', 'no bad IPv6 literal "[127.0.0.1]"'],
      ['example.com', 'no no port in "example.com"'],
      ['example.com:99999', 'no bad port "99999" (1-65535, no leading zero)'],
      ['example.com:65536', 'no bad port "65536" (1-65535, no leading zero)'],
      ['example.com:0', 'no bad port "0" (1-65535, no leading zero)'],
      ['example.com:0443', 'no bad port "0443" (1-65535, no leading zero)'],
      ['example.com:+443', 'no bad port "+443" (digits only, 1-65535)'],
      ['example.com:443 ', 'no bad port "443\\x20" (digits only, 1-65535)'],
      ['example.com:', 'no bad port "" (digits only, 1-65535)'],
      [':443', 'no empty host'],
      ['b\u00fccher.de:443', 'no non-ASCII host "b\\xfccher.de" (send punycode)'],
    ];
    for (const [input, want] of table) assert.equal(authority(input), want, JSON.stringify(input));
  });

  it('parses absolute http:// URLs and refuses the rest', () => {
    const url = (t: string): string => {
      const r = parseAbsoluteUrl(t);
      return r.ok ? `ok ${r.value.host}:${r.value.port} ${r.value.path}` : `no ${r.why}`;
    };
    const table: Array<[string, string]> = [
      ['http://example.com/a?b=1', 'ok example.com:80 /a?b=1'],
      ['HTTP://Example.com:8080', 'ok example.com:8080 /'],
      ['http://example.com?x', 'ok example.com:80 /?x'],
      ['http://[::1]:81/', 'ok ::1:81 /'],
      ['https://example.com/', 'no unsupported scheme "https" (HTTPS goes through CONNECT)'],
      ['http://user@127.0.0.1/', 'no user information in URL "http://user@127.0.0.1/"'],
      ['http://example.com:99999/', 'no bad port "99999" (1-65535, no leading zero)'],
      ['http://example.com/#frag', 'no fragment in request URL "http://example.com/#frag"'],
      ['/just/a/path', 'no not an absolute http:// URL: "/just/a/path"'],
      ['http://2130706433/', 'no "2130706433" is not an IPv4 address in dotted decimal'],
    ];
    for (const [input, want] of table) assert.equal(url(input), want, JSON.stringify(input));
  });

  it('reads allow entries with ports and IDNA; ports 80 and 443 unless the entry names one', () => {
    const entry = (t: string): string => {
      const r = parseAllowEntry(t);
      return r.ok ? `${r.value.kind} ${r.value.host} ${r.value.port ?? '-'}` : `no ${r.why}`;
    };
    assert.equal(entry('Example.COM'), 'name example.com -');
    assert.equal(entry(' *.example.com:8443 '), 'wildcard example.com 8443');
    assert.equal(entry('bücher.de'), 'name xn--bcher-kva.de -');
    assert.equal(entry('10.0.0.5:5432'), 'ipv4 10.0.0.5 5432');
    assert.equal(entry('::1'), 'ipv6 ::1 -');
    assert.equal(entry('[::1]:8080'), 'ipv6 ::1 8080');
    assert.equal(entry('*.10.0.0.5'), 'no a wildcard needs a name, not an address: "*.10.0.0.5"');
    assert.equal(entry('example.com:http'), 'no bad port "http" (digits only, 1-65535)');

    const entries = parseAllowList(['example.com', '*.svc.example.org:8443', 'bücher.de', 'nonsense:port', '127.0.0.2:8080']);
    const t = (host: string, port: number, kind: Target['kind'] = 'name'): string => allowListRefusal({ host, kind, port }, entries) ?? 'allowed';
    assert.equal(t('example.com', 443), 'allowed');
    assert.equal(t('example.com', 80), 'allowed');
    assert.equal(t('example.com', 22), 'port 22 is not allowed for this host (allowed: 80, 443; list it as host:22)');
    assert.equal(t('a.svc.example.org', 8443), 'allowed');
    assert.equal(t('a.svc.example.org', 443), 'port 443 is not allowed for this host (allowed: 8443; list it as host:443)');
    assert.equal(t('svc.example.org', 8443), 'not in agentBash.sandbox.network.allowedDomains');
    assert.equal(t('evilsvc.example.org', 8443), 'not in agentBash.sandbox.network.allowedDomains');
    assert.equal(t('xn--bcher-kva.de', 443), 'allowed');
    assert.equal(t('127.0.0.2', 8080, 'ipv4'), 'allowed');
    assert.equal(t('127.0.0.2', 8080, 'name'), 'not in agentBash.sandbox.network.allowedDomains');
    assert.equal(t('sub.example.com', 443), 'not in agentBash.sandbox.network.allowedDomains');
  });

  it('the CLI refuses an --allow-domain entry that would open nothing, and says why', () => {
    assert.deepEqual(sandboxSettingsOf(new Map([['--allow-domain', ['*.example.com:8443', '[::1]:3000']]])).allowedDomains, ['*.example.com:8443', '[::1]:3000']);
    const usage = (message: string) => (err: unknown) => err instanceof UsageError && err.message === message;
    assert.throws(
      () => sandboxSettingsOf(new Map([['--allow-domain', ['example.com', 'example.com:99999']]])),
      usage('--allow-domain example.com:99999: bad port "99999" (1-65535, no leading zero)'),
    );
    assert.throws(() => sandboxSettingsOf(new Map([['--allow-domain', ['ex ample.com']]])), usage('--allow-domain ex ample.com: control byte or space in host "ex\\x20ample.com"'));
  });

  it('request heads: strict lines, Host must match the target, hop-by-hop headers go', () => {
    const req = (head: string): string => {
      const r = parseProxyRequest(head);
      if (!r.ok) return `no ${r.why}`;
      return r.value.kind === 'connect' ? `connect ${r.value.to.host}:${r.value.to.port}` : r.value.forward;
    };
    assert.equal(req('CONNECT example.com:443 HTTP/1.1\r\nHost: whatever\r\n\r\n'), 'connect example.com:443');
    assert.equal(
      req('GET http://Example.com/p HTTP/1.1\r\nHost: example.com.\r\nProxy-Authorization: Basic eDo=\r\nConnection: keep-alive, X-Secret\r\nX-Secret: 1\r\nKeep-Alive: 5\r\nUpgrade: h2c\r\nAccept: */*\r\n\r\n'),
      'GET /p HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nConnection: close\r\n\r\n',
    );
    assert.equal(req('GET http://example.com:8080/ HTTP/1.0\r\n\r\n'), 'GET / HTTP/1.0\r\nHost: example.com:8080\r\nConnection: close\r\n\r\n');
    const table: Array<[string, string]> = [
      ['GET http://example.com/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'no the Host header "127.0.0.1" does not match the request target example.com:80'],
      ['GET http://example.com/ HTTP/1.1\r\nHost: example.com:8080\r\n\r\n', 'no the Host header "example.com:8080" does not match the request target example.com:80'],
      ['GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nHost: example.com\r\n\r\n', 'no more than one Host header'],
      ['GET http://example.com/ HTTP/1.1\r\n\r\n', 'no no Host header'],
      ['GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n folded\r\n\r\n', 'no folded header line'],
      ['GET http://example.com/ HTTP/1.1\r\nHost: exa\0mple.com\r\n\r\n', 'no control byte in request head: "Host:\\x20exa\\x00mple.com"'],
      ['GET http://example.com/ HTTP/1.1\nHost: example.com\r\n\r\n', 'no control byte in request head: "GET\\x20http://example.com/\\x20HTTP/1.1\\x0aHost:\\x20example.com"'],
      ['GET  http://example.com/ HTTP/1.1\r\n\r\n', 'no bad request line "GET\\x20\\x20http://example.com/\\x20HTTP/1.1"'],
      ['GET http://example.com/ HTTP/2.0\r\n\r\n', 'no bad request line "GET\\x20http://example.com/\\x20HTTP/2.0"'],
      ['GET /origin-form HTTP/1.1\r\nHost: example.com\r\n\r\n', 'no not an absolute http:// URL: "/origin-form"'],
      ['CONNECT host:99999 HTTP/1.1\r\n\r\n', 'no bad CONNECT target: bad port "99999" (1-65535, no leading zero)'],
      ['CONNECT 127.0.0.1\0.example.com:443 HTTP/1.1\r\n\r\n', 'no control byte in request head: "CONNECT\\x20127.0.0.1\\x00.example.com:443\\x20HTTP/1.1"'],
      ['POST http://example.com/ HTTP/1.1\r\nHost: example.com\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n', 'no both Content-Length and Transfer-Encoding'],
      ['POST http://example.com/ HTTP/1.1\r\nHost: example.com\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', 'no bad Content-Length'],
      ['GET http://example.com/ HTTP/1.1\r\nBad Header: x\r\n\r\n', 'no bad header line "Bad\\x20Header:\\x20x"'],
    ];
    for (const [input, want] of table) assert.equal(req(input), want, JSON.stringify(input));
  });
});

describe('exec/sandbox: refusal lines', () => {
  it('name IPv6 hosts in brackets and read them back whole', () => {
    const line = refusalLine({ host: '[::1]', port: 443, reason: 'not in agentBash.sandbox.network.allowedDomains' });
    assert.equal(line, '[sandbox] network access to [::1]:443 was refused: not in agentBash.sandbox.network.allowedDomains\n');
    assert.deepEqual(findViolations(line), { paths: [], hosts: ['[::1]'] });
  });
});

describe('exec/sandbox: address classifier', () => {
  it('names every internal range, in IPv4 and in the IPv6 forms that carry IPv4', () => {
    const table: Array<[string, string | undefined]> = [
      ['127.0.0.1', 'a loopback address'],
      ['127.255.255.254', 'a loopback address'],
      ['0.0.0.0', 'the unspecified address'],
      ['0.1.2.3', 'a reserved address'],
      ['10.1.2.3', 'a private address'],
      ['172.16.0.1', 'a private address'],
      ['172.31.255.255', 'a private address'],
      ['172.32.0.1', undefined],
      ['192.168.1.1', 'a private address'],
      ['100.64.0.1', 'a shared (CGNAT) address'],
      ['100.127.255.255', 'a shared (CGNAT) address'],
      ['100.128.0.1', undefined],
      ['169.254.1.1', 'a link-local address'],
      ['169.254.169.254', 'a cloud metadata address'],
      ['224.0.0.1', 'a multicast address'],
      ['239.255.255.250', 'a multicast address'],
      ['255.255.255.255', 'the broadcast address'],
      ['240.0.0.1', 'a reserved address'],
      ['198.18.0.1', 'a reserved address'],
      ['8.8.8.8', undefined],
      ['93.184.216.34', undefined],
      ['::1', 'a loopback address'],
      ['0:0:0:0:0:0:0:1', 'a loopback address'],
      ['::', 'the unspecified address'],
      ['::ffff:127.0.0.1', 'a loopback address'],
      ['::ffff:7f00:1', 'a loopback address'],
      ['::FFFF:169.254.169.254', 'a cloud metadata address'],
      ['::ffff:10.0.0.1', 'a private address'],
      ['::ffff:8.8.8.8', undefined],
      ['::127.0.0.1', 'a loopback address'],
      ['64:ff9b::7f00:1', 'a loopback address'],
      ['64:ff9b::808:808', undefined],
      ['2002:7f00:1::', 'a loopback address'],
      ['2002:0808:0808::1', undefined],
      ['fe80::1', 'a link-local address'],
      ['febf::1', 'a link-local address'],
      ['fec0::1', 'a site-local address'],
      ['fc00::1', 'a unique-local address'],
      ['fdff::1', 'a unique-local address'],
      ['fd00:ec2::254', 'a cloud metadata address'],
      ['ff02::1', 'a multicast address'],
      ['100::1', 'a reserved address'],
      ['2606:4700::1111', undefined],
      ['2001:db8::1', undefined],
      ['fe80::1%eth0', 'not an IP address'],
      ['localhost', 'not an IP address'],
      ['0177.0.0.1', 'not an IP address'],
    ];
    for (const [address, want] of table) assert.equal(classifyAddress(address), want, address);
  });
});
