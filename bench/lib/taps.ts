// Chips whose keys the bench knows, imported into one team, and fresh taps of them generated beforehand:
// every request a bench sends to POST /verifications is a new genuine scan.
import { randomBytes } from 'node:crypto';
import { generateSun424 } from '../../src/chips/index.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { migrate } from '../../src/db/migrations.js';
import { appendSdm, defaultLayout } from '../../src/chips/url-layout.js';
import { createKey } from '../../src/keys/service.js';
import { importChips } from '../../src/tag-chips/import.js';
import { createTeam } from '../../src/teams/service.js';
import { systemClock } from '../../src/time.js';
import type { Storage } from './storage.js';
import { cliActor } from '../../src/audit/record.js';

export interface BenchChip {
  uid: string;
  url: string;
  meta: Buffer;
  file: Buffer;
}

export interface BenchTeam {
  teamId: string;
  /** A production admin key. */
  key: string;
  chips: BenchChip[];
  ctx: AppContext;
}

/** Migrates `storage`, creates a team with a production key and imports `count` NTAG 424 DNA (AES) chips into it. */
export async function prepareTeam(storage: Storage, master: string, count: number): Promise<BenchTeam> {
  const db = storage.open();
  await migrate(db);
  const ctx = createContext(db, { ...loadConfig({ ...storage.env, TAPPROOF_MASTER_KEY: master }), database: storage.target });
  const { id: teamId } = await createTeam(db.kysely, 'bench', null, systemClock);
  const { key } = await createKey(db.kysely, teamId, 'production', systemClock);
  const chips: BenchChip[] = Array.from({ length: count }, (_, i) => ({
    uid: '04' + randomBytes(6).toString('hex').toUpperCase(),
    url: `https://bench.example.com/t/${i}`,
    meta: randomBytes(16),
    file: randomBytes(16),
  }));
  const entries = chips.map((c) => ({
    url: c.url,
    protocol: 'ntag_424_dna',
    uid: c.uid,
    sdm_meta_read_key: c.meta.toString('hex'),
    sdm_file_read_key: c.file.toString('hex'),
  }));
  await importChips(ctx, { teamId, mode: 'production', actor: cliActor() }, entries);
  return { teamId, key, chips, ctx };
}

/** A public IPv4 address (one of the /8s that regional registries hand out), different from one scan to the next. */
const PUBLIC_FIRST_OCTETS = [2, 5, 31, 37, 46, 62, 77, 78, 81, 85, 88, 91, 93, 95, 101, 103, 110, 118, 121, 130, 133, 151, 177, 186, 190, 196, 200, 213];
export const publicIp = (n: number) => `${PUBLIC_FIRST_OCTETS[n % PUBLIC_FIRST_OCTETS.length]}.${(n >> 16) & 255}.${(n >> 8) & 255}.${(n & 254) + 1}`;

/**
 * `total` POST /verifications bodies, each a fresh tap, each chip's counter rising (`counters` carries them from one
 * call to the next). autocannon writes each connection's first request as it connects, and the server may accept a
 * connection only after hundreds of requests on the others: those first requests use chips that are not tapped again
 * for the next OPENING_GAP requests (the rest round-robin over the other chips). After that, round-robin over all
 * chips: a chip's next tap is `chips.length` requests later, so the server receives one chip's taps in counter order.
 */
const OPENING_GAP = 2_000;
export function freshTaps(chips: BenchChip[], counters: Map<string, number>, total: number, connections: number, clientIp = false): string[] {
  const layout = defaultLayout('ntag_424_dna');
  const opening = chips.slice(0, connections);
  const others = chips.slice(connections);
  const out: string[] = [];
  for (let n = 0; n < total; n++) {
    const chip = n < connections ? opening[n]! : n < connections + OPENING_GAP ? others[(n - connections) % others.length]! : chips[n % chips.length]!;
    const counter = (counters.get(chip.uid) ?? 0) + 1;
    counters.set(chip.uid, counter);
    const sun = generateSun424({ crypto: 'aes', uid: Buffer.from(chip.uid, 'hex'), counter, sdmMetaReadKey: chip.meta, sdmFileReadKey: chip.file });
    const url = appendSdm(chip.url, layout, { picc_data: sun.piccData, cmac: sun.cmac });
    out.push(JSON.stringify({ data: { type: 'verifications', attributes: clientIp ? { url, client_ip: publicIp(n) } : { url } } }));
  }
  return out;
}
