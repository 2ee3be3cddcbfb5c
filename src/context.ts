// The composition root: the kernel and every feature's per-process state, built once
// at start for serve, worker, the CLI and tests. Features receive this whole object
// but each declares the narrow part it uses (its own context type), so none imports
// this module. A service that keeps state between requests lives in its feature and
// is created here: no module-level maps keyed by the database.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { createExtension } from './extension/feature.js';
import type { ExtensionState } from './extension/context.js';
import { CountryLookup } from './geoip/countries.js';
import { createKernel, type Kernel } from './kernel.js';
import type { KeysState } from './keys/context.js';
import { createKeys } from './keys/feature.js';
import { MasterKeys, type MastersState } from './master-keys/masters.js';
import { systemClock, type Clock } from './time.js';
import { createSignals, type SignalsState } from './signals/feature.js';
import type { VerificationsState } from './verifications/context.js';
import { registerWebhookMetrics } from './webhooks/metrics.js';
import { createVerifications } from './verifications/feature.js';
import type { UsersState } from './users/context.js';
import { createUsers } from './users/feature.js';
import { WRITE_KINDS, createWriteKinds } from './write-kinds.js';

export type AppContext = Kernel &
  KeysState &
  MastersState &
  VerificationsState &
  SignalsState &
  ExtensionState &
  UsersState & {
    /** The country of a scan's client address (src/geoip/countries.ts). */
    countries: CountryLookup;
  };

export function createContext(db: Db, config: Config, clock: Clock = systemClock, log?: Logger): AppContext {
  const kernel = createKernel(db, config, clock, { module: WRITE_KINDS, createWriteKinds }, log);
  // A database that stops opening keeps the last good one; the operator hears of it once per failed reload.
  const countries = new CountryLookup(config, {
    onReload: (error) => error && process.stderr.write(`tapproof: GeoIP database not reloaded: ${error.message}\n`),
  });
  db.atClose(() => countries.close());
  const verifications = createVerifications();
  registerWebhookMetrics(kernel);
  return {
    ...kernel,
    ...createKeys(kernel),
    // A chip row cached for scans may name a generation another process just retired: forget them all.
    masters: new MasterKeys(kernel, () => verifications.scanLookups.clear()),
    ...verifications,
    ...createSignals(kernel),
    ...createExtension(kernel),
    ...createUsers(kernel),
    countries,
  };
}
