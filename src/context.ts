import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { Clock } from './time.js';

/** What feature modules receive: the open database, the validated config and the clock services read. */
export interface AppContext {
  db: Db;
  config: Config;
  clock: Clock;
}
