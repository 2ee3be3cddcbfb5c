// Opening a process's context: the database, its migrations, then the composition root.
// Every CLI command starts here; only `serve` and `worker` load the HTTP server and the jobs.
import type { Config } from './config.js';
import { createContext, type AppContext } from './context.js';
import { openDatabase, type Db, type OpenOptions } from './db/database.js';
import { migrate } from './db/migrations.js';
import { databaseStartError } from './startup-errors.js';
import { systemClock } from './time.js';

/** Opens and migrates the database; a database that cannot be reached is one ConfigError line. */
export async function openContext(config: Config, options: OpenOptions = {}, migrated?: (applied: string[]) => void): Promise<AppContext> {
  let db: Db;
  try {
    db = openDatabase(config.database, options);
  } catch (error) {
    throw databaseStartError(error, config.database) ?? error;
  }
  try {
    const applied = await migrate(db);
    migrated?.(applied);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw databaseStartError(error, config.database) ?? error;
  }
  return createContext(db, config, systemClock);
}
