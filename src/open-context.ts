// Opening a process's context: the database, its migrations, then the composition root.
// Every CLI command starts here; only `serve` and `worker` load the HTTP server and the jobs.
import { createContext, type AppContext } from './context.js';
import { openDatabase, type Db, type OpenOptions } from './db/database.js';
import { isMigrated, migrate } from './db/migrations.js';
import { databaseStartError } from './startup-errors.js';
import { systemClock } from './time.js';
import type { Logger } from 'pino';
import { existsSync } from 'node:fs';
import { ConfigError, type Config } from './config.js';
import { awaitedNow, waitingFor } from './cli-kit.js';

function noDatabase(config: Config): ConfigError {
  const where = config.database.kind === 'sqlite' ? `no SQLite database at ${config.database.path}` : 'the PostgreSQL schema holds no tapproof database';
  return new ConfigError(
    `${where}: set DATABASE_URL (or TAPPROOF_DATA_DIR) to the server's database; only \`tapproof serve\`, \`tapproof worker\` and \`tapproof migrate\` make a new one`,
  );
}

/**
 * Opens and migrates the database; a database that cannot be reached is one ConfigError line. Only `serve`,
 * `worker` (a long-running peer of serve: whichever starts first migrates), `migrate` (and `restore`, its own
 * way) make a database: every other command (`existing`) refuses a SQLite
 * file that is not there, or a PostgreSQL schema never migrated, so that a command pointed at the wrong place
 * by a shell without DATABASE_URL says so instead of acting on a new, empty database.
 */
export async function openContext(
  config: Config,
  options: OpenOptions & { existing?: boolean; log?: Logger } = {},
  migrated?: (applied: string[]) => void,
): Promise<AppContext> {
  const { existing = false, log, ...open } = options;
  if (existing && config.database.kind === 'sqlite' && config.database.path !== ':memory:' && !existsSync(config.database.path)) throw noDatabase(config);
  const awaited = awaitedNow();
  waitingFor('the database to open');
  let db: Db;
  try {
    db = openDatabase(config.database, open);
  } catch (error) {
    throw databaseStartError(error, config.database) ?? error;
  }
  if (existing && config.database.kind === 'postgres') {
    const migrated = await isMigrated(db).catch(async (error: unknown) => {
      await db.close().catch(() => undefined);
      throw databaseStartError(error, config.database) ?? error;
    });
    if (!migrated) {
      await db.close();
      throw noDatabase(config);
    }
  }
  try {
    waitingFor("the database's migrations");
    const applied = await migrate(db);
    migrated?.(applied);
  } catch (error) {
    waitingFor('the database to close');
    await db.close().catch(() => undefined);
    throw databaseStartError(error, config.database) ?? error;
  }
  waitingFor(awaited);
  return createContext(db, config, systemClock, log);
}
