import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// When a key was last used (GET /keys, docs/read-api.md). Written at most once a minute per key
// per process, in the background of the request that used it; null for a key never used since.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();
}
