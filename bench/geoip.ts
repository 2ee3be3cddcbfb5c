// Country lookups per second in the embedded GeoIP database on one core: the cost a scan pays for its country.
// Run: npx tsx bench/geoip.ts [seconds-per-case]
//
// Each case looks up a pool of 100,000 random addresses round-robin, so the reader's cache of decoded
// records sees as many distinct networks as real traffic from many clients would. The rate per
// CPU-second is the figure to compare on a shared machine.
import { randomBytes } from 'node:crypto';
import { Countries } from '../src/geoip/countries.js';
import { publicAddress } from '../src/geoip/addresses.js';

const seconds = Number(process.argv[2] ?? 2);
const POOL = 100_000;

function randomPublicIpv4(): string {
  for (;;) {
    const b = randomBytes(4);
    const ip = `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
    if (publicAddress(ip) !== null) return ip;
  }
}

/** Global unicast space (2000::/3), where the database's IPv6 networks are. */
function randomPublicIpv6(): string {
  const b = randomBytes(16);
  b[0] = 0x20 | (b[0]! & 0x1f);
  return Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2).toString(16)).join(':');
}

const countries = await Countries.open({ geoipDb: null });
const cases: [string, string[]][] = [
  ['random public IPv4', Array.from({ length: POOL }, randomPublicIpv4)],
  ['random IPv4-mapped IPv6', Array.from({ length: POOL }, () => `::ffff:${randomPublicIpv4()}`)],
  ['random global IPv6', Array.from({ length: POOL }, randomPublicIpv6)],
];

console.log(`database: ${countries.path}`);
for (const [name, pool] of cases) {
  for (let i = 0; i < pool.length; i++) countries.lookup(pool[i]!); // warm-up
  let found = 0;
  let n = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const until = t0 + BigInt(Math.round(seconds * 1e9));
  while (process.hrtime.bigint() < until) {
    for (let i = 0; i < 1000; i++) if (countries.lookup(pool[(n + i) % POOL]!) !== null) found++;
    n += 1000;
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpuUsage = process.cpuUsage(cpu0);
  const cpu = (cpuUsage.user + cpuUsage.system) / 1e6;
  console.log(
    `${name.padEnd(26)} ${Math.round(n / cpu)
      .toLocaleString('en-US')
      .padStart(11)} lookups per CPU-second  ` +
      `${((cpu / n) * 1e6).toFixed(2)} µs per lookup  (${Math.round(n / wall).toLocaleString('en-US')}/s wall, ${((found / n) * 100).toFixed(1)}% with a country)`,
  );
}
countries.close();
