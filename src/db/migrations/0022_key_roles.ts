import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// Restricted and expiring API keys (docs/api.md#keys). A key's role bounds what it may call; keys made
// before roles existed could do everything, so they stay `admin`. A name tells keys apart in lists;
// an expiry (microseconds) refuses the key from then on, as a revoke does. A rolled key names the key
// that replaced it, which also makes a roll happen once.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('role', text(dialect), (c) => c.notNull().defaultTo('admin'))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('name', text(dialect)).execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('replaced_by', text(dialect)).execute();
}
