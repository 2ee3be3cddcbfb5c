// What feature modules receive: the open database, the validated config, the clock,
// and the per-process services built once here at start (serve, worker, CLI, tests).
// A service that keeps state between requests (caches, the group commit, metrics,
// key material) lives here and nowhere else: no module-level maps keyed by the database.
import { WRITE_KINDS, createWriteKinds } from './write-kinds.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { Mode } from './db/schema.js';
import { GroupCommit } from './db/group-commit.js';
import { CountryLookup } from './geoip/countries.js';
import { createOwnershipChecks, type OwnershipChecks } from './extension/ownership-checks.js';
import { PrincipalCache } from './keys/cache.js';
import { KeyUses } from './keys/last-use.js';
import { Metrics } from './metrics.js';
import type { TagWithChip } from './tag-chips/repository.js';
import { systemClock, type Clock } from './time.js';
import { ArrivalOrder } from './verifications/arrival-order.js';

export interface AppContext {
  db: Db;
  config: Config;
  clock: Clock;
  metrics: Metrics;
  /** Durable writes of scans and extension writes, batched (src/db/group-commit.ts). */
  commits: GroupCommit;
  /** Bearer keys already resolved (src/keys/cache.ts). */
  principals: PrincipalCache;
  /** When each key was last used, written once a minute at most (src/keys/last-use.ts). */
  keyUses: KeyUses;
  /** Each mode's master key, resolved once (src/chip-keys/masters.ts). */
  masters: Map<Mode, Promise<Buffer>>;
  /** Configured tags by world and url, for the scan lookup (src/verifications/service.ts). */
  scanLookups: Map<string, TagWithChip>;
  /** When an issued challenge last pruned the expired ones (src/extension/challenges.ts). */
  challengePrune: { at: number };
  /** Signature and holdings checks of ownership proofs (src/extension/ownership-checks.ts). */
  ownership: OwnershipChecks;
  /** The order in which scans arrived, which their decisions follow (src/verifications/arrival-order.ts). */
  arrival: ArrivalOrder;
  /** The country of a scan's client address (src/geoip/countries.ts). */
  countries: CountryLookup;
}

export function createContext(db: Db, config: Config, clock: Clock = systemClock): AppContext {
  const metrics = new Metrics(db);
  // A database that stops opening keeps the last good one; the operator hears of it once per failed reload.
  const countries = new CountryLookup(config, {
    onReload: (error) => error && process.stderr.write(`tapproof: GeoIP database not reloaded: ${error.message}\n`),
  });
  db.atClose(() => countries.close());
  return {
    db,
    config,
    clock,
    metrics,
    commits: new GroupCommit(db, createWriteKinds(db.dialect), { writers: WRITE_KINDS, thread: config.scanCommitThread, metrics }),
    principals: new PrincipalCache(db),
    keyUses: new KeyUses(db, clock),
    masters: new Map(),
    scanLookups: new Map(),
    challengePrune: { at: 0 },
    ownership: createOwnershipChecks(db, config),
    arrival: new ArrivalOrder(),
    countries,
  };
}
