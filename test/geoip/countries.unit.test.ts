// A scan's country: real lookups in the embedded database, no country for addresses nobody owns,
// the operator's own GeoLite2-style file, its reload on change and on SIGHUP, and clear start-up errors.
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { Countries, EMBEDDED_GEOIP_DB } from '../../src/geoip/countries.js';
import { writeMmdb } from './mmdb.js';

const dir = mkdtempSync(join(tmpdir(), 'tapproof-geoip-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const GERMANY = writeMmdb({
  '8.8.8.0/24': { country: { iso_code: 'DE' } },
  '1.1.1.0/24': { registered_country: { iso_code: 'AU' } },
  '2001:4860::/32': { country: { iso_code: 'CH' } },
});
const FRANCE = writeMmdb({ '8.8.8.0/24': { country: { iso_code: 'FR' } } });

/** Opens a database file and collects the outcome of each background reload. */
async function openWatched(path: string, watchIntervalMs = 20) {
  const waiting: ((error: Error | null) => void)[] = [];
  const countries = await Countries.open({ geoipDb: path }, { watchIntervalMs, onReload: (error) => waiting.shift()?.(error) });
  const nextReload = () =>
    new Promise<Error | null>((resolve, reject) => {
      // Keeps the event loop alive while the (non-persistent) watch is the only thing left to wake it.
      const guard = setTimeout(() => reject(new Error('no reload happened')), 30_000);
      waiting.push((error) => {
        clearTimeout(guard);
        resolve(error);
      });
    });
  return { countries, nextReload };
}

/** Replaces the file the way a database updater does: a new file renamed over the old one. */
function replace(path: string, content: Buffer | string): void {
  writeFileSync(`${path}.new`, content);
  renameSync(`${path}.new`, path);
}

describe('the embedded database', async () => {
  const countries = await Countries.open({ geoipDb: null });
  after(() => countries.close());

  test('well-known public addresses have their country', () => {
    const expected: Record<string, string> = {
      '8.8.8.8': 'US',
      '9.9.9.9': 'US',
      '1.1.1.1': 'AU',
      '81.2.69.142': 'GB',
      '193.0.6.139': 'NL',
      '202.12.27.33': 'JP',
      '200.160.4.6': 'BR',
      '196.216.2.1': 'ZA',
      '80.67.169.12': 'FR',
    };
    assert.deepEqual(Object.fromEntries(Object.keys(expected).map((ip) => [ip, countries.lookup(ip)])), expected);
  });

  test('IPv6 addresses have their country; an IPv4-mapped address is looked up as its IPv4 address', () => {
    assert.equal(countries.lookup('2001:4860:4860::8888'), 'US');
    assert.equal(countries.lookup('2001:67c:2e8:22::c100:68b'), 'NL');
    assert.equal(countries.lookup('2a00:1450:4001:80b::200e'), 'IE');
    assert.equal(countries.lookup('::ffff:8.8.8.8'), 'US');
    assert.equal(countries.lookup('::ffff:0808:0808'), 'US');
    assert.equal(countries.lookup('::FFFF:81.2.69.142'), 'GB');
  });

  test('addresses no country owns have none, in every reserved class and next to none of their public neighbours', () => {
    const none = {
      'this network': ['0.0.0.0', '0.1.2.3'],
      private: ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.1.1', 'fc00::1', 'fd12:3456:789a::1'],
      loopback: ['127.0.0.1', '127.255.255.254', '::1', '::ffff:127.0.0.1'],
      'link-local': ['169.254.0.1', '169.254.255.254', 'fe80::1', 'fe80::1%eth0'],
      CGNAT: ['100.64.0.1', '100.127.255.254', '::ffff:100.64.0.1'],
      // The embedded database maps 2001:db8::/32 to a country: the range check comes first.
      documentation: ['192.0.2.1', '198.51.100.7', '203.0.113.9', '2001:db8::1', '3fff::1'],
      multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff0e::1'],
      reserved: [
        '192.0.0.8',
        '198.18.0.1',
        '198.19.255.255',
        '240.0.0.1',
        '255.255.255.255',
        '::',
        '::8.8.8.8',
        '100::1',
        '2001::1',
        'fec0::1',
        '64:ff9b:1::1',
      ],
      'not an address': ['', 'example.com', '1.2.3', '256.1.1.1', '::gg', '8.8.8.8/32', ' 8.8.8.8'],
    };
    for (const [kind, ips] of Object.entries(none)) {
      assert.deepEqual(
        ips.filter((ip) => countries.lookup(ip) !== null),
        [],
        `${kind} addresses have no country`,
      );
    }
    const neighbours = ['11.0.0.1', '100.63.255.255', '100.128.0.1', '172.15.255.254', '172.32.0.1', '192.169.0.1', '223.255.255.1'];
    assert.deepEqual(
      neighbours.filter((ip) => countries.lookup(ip) === null),
      [],
      'the public neighbours of reserved ranges keep their country',
    );
  });

  test('the embedded file is the one shipped in the npm package', () => {
    assert.equal(countries.path, EMBEDDED_GEOIP_DB);
    assert.match(EMBEDDED_GEOIP_DB, /@ip-location-db\/geo-whois-asn-country-mmdb\/geo-whois-asn-country\.mmdb$/);
  });
});

describe("TAPPROOF_GEOIP_DB: the operator's own database", () => {
  test('a GeoLite2-shaped file answers from country.iso_code, then registered_country; unknown addresses have none', async () => {
    const path = join(dir, 'GeoLite2-Country.mmdb');
    writeFileSync(path, GERMANY);
    const config = loadConfig({ TAPPROOF_GEOIP_DB: path });
    assert.equal(config.geoipDb, path);
    const countries = await Countries.open(config);
    try {
      assert.equal(countries.path, path);
      assert.equal(countries.lookup('8.8.8.8'), 'DE');
      assert.equal(countries.lookup('::ffff:8.8.8.9'), 'DE');
      assert.equal(countries.lookup('1.1.1.1'), 'AU');
      assert.equal(countries.lookup('2001:4860:4860::8888'), 'CH');
      assert.equal(countries.lookup('9.9.9.9'), null);
      assert.equal(countries.lookup('10.0.0.1'), null);
    } finally {
      countries.close();
    }
  });

  test('a file replaced on disk is read again; a broken replacement keeps the database in use', async () => {
    const path = join(dir, 'watched.mmdb');
    writeFileSync(path, GERMANY);
    const { countries, nextReload } = await openWatched(path);
    try {
      assert.equal(countries.lookup('8.8.8.8'), 'DE');
      let reloaded = nextReload();
      replace(path, FRANCE);
      assert.equal(await reloaded, null);
      assert.equal(countries.lookup('8.8.8.8'), 'FR');
      assert.equal(countries.lookup('1.1.1.1'), null);

      reloaded = nextReload();
      replace(path, 'not a database');
      const error = await reloaded;
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, new RegExp(`^TAPPROOF_GEOIP_DB: cannot open ${path} as a MaxMind database \\(.+\\)$`));
      assert.equal(countries.lookup('8.8.8.8'), 'FR', 'the last good database stays in use');
    } finally {
      countries.close();
    }
  });

  test('SIGHUP reads the file again', async () => {
    const path = join(dir, 'hup.mmdb');
    writeFileSync(path, GERMANY);
    const before = process.listenerCount('SIGHUP');
    // A watch too slow to see the change: only the signal can.
    const { countries, nextReload } = await openWatched(path, 3_600_000);
    try {
      assert.equal(process.listenerCount('SIGHUP'), before + 1);
      writeFileSync(path, FRANCE);
      assert.equal(countries.lookup('8.8.8.8'), 'DE');
      const reloaded = nextReload();
      process.kill(process.pid, 'SIGHUP');
      assert.equal(await reloaded, null);
      assert.equal(countries.lookup('8.8.8.8'), 'FR');
    } finally {
      countries.close();
    }
    assert.equal(process.listenerCount('SIGHUP'), before, 'close() stops listening');
  });

  test('reload() swaps the database in, or rejects and keeps it', async () => {
    const path = join(dir, 'manual.mmdb');
    writeFileSync(path, GERMANY);
    const countries = await Countries.open({ geoipDb: path });
    try {
      writeFileSync(path, FRANCE);
      await countries.reload();
      assert.equal(countries.lookup('8.8.8.8'), 'FR');
      rmSync(path);
      await assert.rejects(countries.reload(), { constructor: ConfigError, message: `TAPPROOF_GEOIP_DB: cannot open ${path} as a MaxMind database (ENOENT)` });
      assert.equal(countries.lookup('8.8.8.8'), 'FR');
    } finally {
      countries.close();
    }
  });

  test('a path that is missing, a folder or not a database stops the start with one clear line', async () => {
    const missing = join(dir, 'missing.mmdb');
    assert.throws(() => loadConfig({ TAPPROOF_GEOIP_DB: missing }), {
      constructor: ConfigError,
      message: `TAPPROOF_GEOIP_DB: cannot read ${missing} (ENOENT)`,
    });
    const folder = join(dir, 'folder.mmdb');
    mkdirSync(folder);
    assert.throws(() => loadConfig({ TAPPROOF_GEOIP_DB: folder }), { constructor: ConfigError, message: `TAPPROOF_GEOIP_DB: ${folder} is not a file` });
    const text = join(dir, 'text.mmdb');
    writeFileSync(text, 'hello');
    await assert.rejects(Countries.open(loadConfig({ TAPPROOF_GEOIP_DB: text })), (error: Error) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, new RegExp(`^TAPPROOF_GEOIP_DB: cannot open ${text} as a MaxMind database \\(.+\\)$`));
      return true;
    });
    assert.equal(loadConfig({}).geoipDb, null, 'unset: the embedded database');
    assert.equal(loadConfig({ TAPPROOF_GEOIP_DB: '' }).geoipDb, null);
  });
});
