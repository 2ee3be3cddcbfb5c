import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// One check value per mode's master key, so that a process started with another
// master refuses to start instead of failing every scan (docs/decisions.md §4).
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('master_key_checks')
    .addColumn('mode', 'text', (c) => c.primaryKey())
    .addColumn('check_value', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'bigint', (c) => c.notNull())
    .execute();
}
