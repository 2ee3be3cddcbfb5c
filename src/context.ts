import type { Config } from './config.js';
import type { Db } from './db/database.js';

/** What feature modules receive: the open database and the validated config. */
export interface AppContext {
  db: Db;
  config: Config;
}
