// One way to run a transaction that may lose a race. PostgreSQL may pick a
// transaction as a deadlock or serialization victim (40P01, 40001) and SQLite may
// find the file busy; the work only reads and writes the database, so running it
// again is safe. A unique-index race (two requests claiming one url) is worth one
// more run when the caller's checks will then see the winner.
import type { Db, Executor } from './database.js';
import { isRetryableConflict, isUniqueViolation } from './database.js';

export interface RetryOptions {
  /** Runs in all (default 5). */
  attempts?: number;
  /** Run once more after a unique violation (the work's checks then report the conflict). */
  afterUniqueViolation?: boolean;
}

export async function inTransaction<T>(db: Db, work: (trx: Executor) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 5;
  let uniqueRetried = !options.afterUniqueViolation;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.kysely.transaction().execute(work);
    } catch (error) {
      if (isUniqueViolation(error) && !uniqueRetried) {
        uniqueRetried = true;
        continue;
      }
      if (!isRetryableConflict(error) || attempt >= attempts) throw error;
      // A short random pause, longer each time, so that the two losers do not collide again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
