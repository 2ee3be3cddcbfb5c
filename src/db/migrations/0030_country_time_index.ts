import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// GET /verifications filtered by `country` walks a world's scans of one country in time order
// (docs/read-api.md): without it the walk would read the world's index and skip every other country,
// so a rare country would read the whole history. Partial, like the flagged index: a filter always
// names a country, so the scans of none (no client address, a private one) are left out and write no
// leaf of it. The others enter it at one right edge per country of a world: a verify commit writes
// one more leaf for each country its batch holds.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('verifications_country_time')
    .on('verifications')
    .columns(['team_id', 'mode', 'country', 'scanned_at', 'id'])
    .where(sql.ref('country'), 'is not', null)
    .execute();
}
