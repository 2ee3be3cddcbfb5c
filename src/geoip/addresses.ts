// Which IP addresses have a country: private, reserved, loopback, link-local, CGNAT, documentation and multicast ranges have none.
import { isIPv4, isIPv6 } from 'node:net';

// No country can own these: they are not routed on the public Internet (IANA special-purpose registries).
// Matched on parsed numbers rather than with net.BlockList, which costs several times the database lookup.
const NOT_PUBLIC_V4 = (
  [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8], // private
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local
    ['172.16.0.0', 12], // private
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation (TEST-NET-1)
    ['192.88.99.0', 24], // 6to4 relay anycast, deprecated
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // documentation (TEST-NET-2)
    ['203.0.113.0', 24], // documentation (TEST-NET-3)
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, and the broadcast address
  ] as const
).map(([network, prefix]) => {
  const mask = (~0 << (32 - prefix)) >>> 0;
  return { network: (ipv4Number(network) & mask) >>> 0, mask };
});
const NOT_PUBLIC_V6 = (
  [
    ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible addresses
    ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation
    ['100::', 64], // discard-only
    ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking…)
    ['2001:db8::', 32], // documentation
    ['3fff::', 20], // documentation
    ['fc00::', 7], // unique local (private)
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local, deprecated
    ['ff00::', 8], // multicast
  ] as const
).map(([network, prefix]) => ({ groups: ipv6Groups(network), prefix }));

function ipv4Number(ip: string): number {
  const [a, b, c, d] = ip.split('.').map(Number) as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function inV6Range(groups: number[], range: { groups: number[]; prefix: number }): boolean {
  const whole = range.prefix >>> 4;
  for (let i = 0; i < whole; i++) if (groups[i] !== range.groups[i]) return false;
  const rest = range.prefix & 15;
  if (rest === 0) return true;
  const mask = (0xffff << (16 - rest)) & 0xffff;
  return (groups[whole]! & mask) === (range.groups[whole]! & mask);
}

/** The eight 16-bit groups of a valid IPv6 address (with or without an embedded dotted IPv4 tail). */
function ipv6Groups(ip: string): number[] {
  let text = ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  if (tail === undefined) return left.map((g) => parseInt(g, 16));
  const right = tail === '' ? [] : tail.split(':');
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right].map((g) => parseInt(g, 16));
}

/**
 * The address to look up for `ip`, or null when it cannot have a country (not public) or is not an
 * IP address. An IPv4-mapped IPv6 address (::ffff:a.b.c.d, how a dual-stack socket reports IPv4
 * clients) is looked up, and judged, as the IPv4 address it carries.
 */
export function publicAddress(ip: string): string | null {
  const address = ip.split('%')[0]!;
  if (isIPv4(address)) {
    const n = ipv4Number(address);
    return NOT_PUBLIC_V4.some((r) => (n & r.mask) >>> 0 === r.network) ? null : address;
  }
  if (!isIPv6(address)) return null;
  const g = ipv6Groups(address);
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return publicAddress(`${g[6]! >>> 8}.${g[6]! & 0xff}.${g[7]! >>> 8}.${g[7]! & 0xff}`);
  }
  return NOT_PUBLIC_V6.some((r) => inV6Range(g, r)) ? null : address;
}
