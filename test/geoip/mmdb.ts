// A minimal MaxMind DB writer for tests: an IPv6 tree (IPv4 under ::/96, as GeoLite2 has it), 24-bit records, maps of strings.
import { isIPv4 } from 'node:net';

type Value = string | { [key: string]: Value };

function control(type: number, size: number): Buffer {
  if (size >= 29) throw new RangeError('the test writer only writes short values');
  return type <= 7 ? Buffer.from([(type << 5) | size]) : Buffer.from([size, type - 7]);
}

/** An unsigned integer of `bytes` bytes as the type that holds it (5 uint16, 6 uint32, 9 uint64). */
function unsigned(type: 5 | 6 | 9, bytes: number, n: bigint): Buffer {
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) out[bytes - 1 - i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return Buffer.concat([control(type, bytes), out]);
}

function encode(value: Value | Buffer): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.concat([control(2, Buffer.byteLength(value)), Buffer.from(value)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
}

function map(entries: Record<string, Buffer>): Buffer {
  return Buffer.concat([control(7, Object.keys(entries).length), ...Object.entries(entries).flatMap(([k, v]) => [encode(k), v])]);
}

/** The 128 bits of an address, IPv4 as ::a.b.c.d. */
function bits(ip: string): number[] {
  const bytes = Buffer.alloc(16);
  if (isIPv4(ip)) bytes.set(ip.split('.').map(Number), 12);
  else {
    const [head, tail = ''] = ip.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
    groups.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16), i * 2));
  }
  return [...bytes].flatMap((b) => [7, 6, 5, 4, 3, 2, 1, 0].map((i) => (b >> i) & 1));
}

/** A database mapping each network ("8.8.8.0/24", "2001:4860::/32") to its record. */
export function writeMmdb(networks: Record<string, Value>, databaseType = 'GeoLite2-Country'): Buffer {
  type Slot = { node: number } | { data: number } | null;
  const nodes: [Slot, Slot][] = [[null, null]];
  const data: Buffer[] = [];
  let dataLength = 0;
  for (const [network, value] of Object.entries(networks)) {
    const [ip, prefixText] = network.split('/') as [string, string];
    const prefix = Number(prefixText) + (isIPv4(ip) ? 96 : 0);
    const path = bits(ip).slice(0, prefix);
    let node = 0;
    path.forEach((bit, depth) => {
      if (depth === path.length - 1) {
        nodes[node]![bit] = { data: dataLength };
        return;
      }
      const next = nodes[node]![bit];
      if (next !== null && 'node' in next) node = next.node;
      else {
        nodes.push([null, null]);
        nodes[node]![bit] = { node: nodes.length - 1 };
        node = nodes.length - 1;
      }
    });
    const encoded = encode(value);
    data.push(encoded);
    dataLength += encoded.length;
  }
  const count = nodes.length;
  const tree = Buffer.alloc(count * 6);
  const recordValue = (r: Slot) => (r === null ? count : 'node' in r ? r.node : count + 16 + r.data);
  nodes.forEach(([left, right], i) => {
    tree.writeUIntBE(recordValue(left), i * 6, 3);
    tree.writeUIntBE(recordValue(right), i * 6 + 3, 3);
  });
  const metadata = map({
    binary_format_major_version: unsigned(5, 1, 2n),
    binary_format_minor_version: unsigned(5, 1, 0n),
    build_epoch: unsigned(9, 4, 1_700_000_000n),
    database_type: encode(databaseType),
    description: encode({ en: 'tapproof test database' }),
    ip_version: unsigned(5, 1, 6n),
    languages: Buffer.concat([control(11, 1), encode('en')]),
    node_count: unsigned(6, 4, BigInt(count)),
    record_size: unsigned(5, 1, 24n),
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), metadata]);
}
