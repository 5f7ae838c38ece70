// Which addresses the sandbox's proxy refuses to dial unless an allow entry names them literally:
// everything that is not the public internet — this machine (loopback, unspecified), its networks
// (private, shared/CGNAT, link-local, unique-local), cloud metadata services, multicast and
// broadcast, reserved ranges — including the same addresses spelled inside IPv6 (IPv4-mapped,
// IPv4-compatible, NAT64, 6to4).
import { isIPv4, isIPv6 } from 'node:net';

/** Why an address is internal, as the refusal says it (`resolves to a loopback address`). */
export type AddressClass =
  | 'a loopback address'
  | 'the unspecified address'
  | 'a private address'
  | 'a shared (CGNAT) address'
  | 'a link-local address'
  | 'a cloud metadata address'
  | 'a multicast address'
  | 'the broadcast address'
  | 'a reserved address'
  | 'a unique-local address'
  | 'a site-local address'
  | 'not an IP address';

function v4Number(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function inV4(n: number, base: string, bits: number): boolean {
  const size = 2 ** (32 - bits);
  const start = v4Number(base);
  return n >= start && n < start + size;
}

function classifyV4Number(n: number): AddressClass | undefined {
  if (n === 0xa9fea9fe) return 'a cloud metadata address'; // 169.254.169.254
  if (n === 0xffffffff) return 'the broadcast address';
  if (inV4(n, '0.0.0.0', 8)) return n === 0 ? 'the unspecified address' : 'a reserved address';
  if (inV4(n, '127.0.0.0', 8)) return 'a loopback address';
  if (inV4(n, '10.0.0.0', 8) || inV4(n, '172.16.0.0', 12) || inV4(n, '192.168.0.0', 16)) return 'a private address';
  if (inV4(n, '100.64.0.0', 10)) return 'a shared (CGNAT) address';
  if (inV4(n, '169.254.0.0', 16)) return 'a link-local address';
  if (inV4(n, '224.0.0.0', 4)) return 'a multicast address';
  // IETF protocol assignments, benchmarking, and the old class E.
  if (inV4(n, '192.0.0.0', 24) || inV4(n, '198.18.0.0', 15) || inV4(n, '240.0.0.0', 4)) return 'a reserved address';
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (embedded dotted IPv4 tail allowed). */
function v6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    if (!isIPv4(tail[1])) return undefined;
    const n = v4Number(tail[1]);
    text = `${text.slice(0, -tail[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...new Array<number>(Math.max(fill, 0)).fill(0), ...rest];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return undefined;
  return groups;
}

function classifyV6(g: number[]): AddressClass | undefined {
  const embedded = (hi: number, lo: number): number => g[hi] * 65536 + g[lo];
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'the unspecified address';
  if (zeros(0, 7) && g[7] === 1) return 'a loopback address';
  // fd00:ec2::254, the IPv6 address of the EC2 metadata service.
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && zeros(2, 7) && g[7] === 0x254) return 'a cloud metadata address';
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64): the IPv4 address within.
  if (zeros(0, 5) && g[5] === 0xffff) return classifyV4Number(embedded(6, 7)) ?? undefined;
  if (zeros(0, 6)) return classifyV4Number(embedded(6, 7)) ?? 'a reserved address';
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyV4Number(embedded(6, 7));
  // 6to4 (2002:a.b.c.d::/48) reaches the IPv4 address a.b.c.d.
  if (g[0] === 0x2002) return classifyV4Number(embedded(1, 2));
  if ((g[0] & 0xfe00) === 0xfc00) return 'a unique-local address';
  if ((g[0] & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((g[0] & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((g[0] & 0xff00) === 0xff00) return 'a multicast address';
  // The discard prefix 100::/64.
  if (g[0] === 0x100 && zeros(1, 4)) return 'a reserved address';
  return undefined;
}

/** Undefined for a public address; otherwise what kind of internal address it is. */
export function classifyAddress(address: string): AddressClass | undefined {
  if (isIPv4(address)) return classifyV4Number(v4Number(address));
  if (isIPv6(address) && !address.includes('%')) {
    const groups = v6Groups(address);
    return groups ? classifyV6(groups) : 'not an IP address';
  }
  return 'not an IP address';
}
