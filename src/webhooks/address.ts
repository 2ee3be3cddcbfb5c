// Which network addresses a webhook may reach. Customer URLs must not become a
// way into the operator's own network (SSRF): loopback, private, link-local,
// CGNAT, multicast, reserved and documentation ranges are refused, including
// IPv6 forms that embed an IPv4 address (mapped, translated, compatible, NAT64,
// 6to4, Teredo): a gateway on the way turns them into that IPv4 address.
import { isIP } from 'node:net';

type Range = [prefix: number[], bits: number, why: string];

const V4: Range[] = [
  [[0], 8, 'unspecified'],
  [[10], 8, 'private'],
  [[100, 64], 10, 'shared (CGNAT)'],
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local'],
  [[172, 16], 12, 'private'],
  [[192, 0, 0], 24, 'reserved'],
  [[192, 0, 2], 24, 'documentation'],
  [[192, 88, 99], 24, 'reserved'],
  [[192, 168], 16, 'private'],
  [[198, 18], 15, 'benchmarking'],
  [[198, 51, 100], 24, 'documentation'],
  [[203, 0, 113], 24, 'documentation'],
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'],
];

// Prefixes as 16-bit groups.
const V6: Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0], 128, 'unspecified'],
  [[0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[0x100], 64, 'discard'],
  [[0x2001, 0x0db8], 32, 'documentation'],
  [[0x2001], 23, 'reserved'],
  [[0xfc00], 7, 'private (ULA)'],
  [[0xfe80], 10, 'link-local'],
  [[0xfec0], 10, 'site-local'],
  [[0xff00], 8, 'multicast'],
];

function matches(value: number[], prefix: number[], bits: number, width: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= width) {
    const take = Math.min(bits, width);
    const mask = ((1 << take) - 1) << (width - take);
    if (((value[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function v6Groups(address: string): number[] {
  let text = address.split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const b = dotted[1].split('.').map(Number);
    text = text.slice(0, -dotted[1].length) + `${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const front = part(head);
  const back = part(tail);
  return tail === undefined ? front : [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
}

/** Why `address` (an IP literal) must not be reached, or null when it is public. */
export function refusedBecause(address: string): string | null {
  const family = isIP(address.split('%')[0]);
  if (family === 4) {
    const bytes = address.split('.').map(Number);
    return V4.find(([prefix, bits]) => matches(bytes, prefix, bits, 8))?.[2] ?? null;
  }
  if (family !== 6) return 'not an IP address';
  const g = v6Groups(address);
  const embedded = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (translated, RFC 2765),
  // 64:ff9b::/96 (well-known NAT64): judge the IPv4 inside.
  if (zeros(0, 5) && (g[5] === 0xffff || (g[5] === 0 && (g[6] !== 0 || g[7] > 1)))) return refusedBecause(embedded(g[6], g[7]));
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return refusedBecause(embedded(g[6], g[7]));
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return refusedBecause(embedded(g[6], g[7]));
  // 64:ff9b:1::/48 is local-use NAT64 (RFC 8215): the operator chooses where the IPv4
  // sits inside it, so no position can be judged; it is never a public destination.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'local-use NAT64';
  if (g[0] === 0x2002) return refusedBecause(embedded(g[1], g[2]));
  // Teredo 2001:0::/32: server IPv4 in groups 2-3, client IPv4 inverted in groups 6-7.
  // Either one private is refused; the rest of 2001::/23 stays refused below anyway.
  if (g[0] === 0x2001 && g[1] === 0) {
    const why = refusedBecause(embedded(g[2], g[3])) ?? refusedBecause(embedded(g[6] ^ 0xffff, g[7] ^ 0xffff));
    if (why) return why;
  }
  return V6.find(([prefix, bits]) => matches(g, prefix, bits, 16))?.[2] ?? null;
}
