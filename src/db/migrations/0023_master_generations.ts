import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// Master key generations (docs/operations.md, Master keys): the one check value per mode becomes
// numbered generations, the highest live one current. `key_ids` names, per sealing purpose, the key
// id a value sealed under the generation carries (src/secrets), so that what depends on a generation
// can be counted without its key; a generation carried over from the checks gets them from the first
// process that holds its key. Every chip records the generation its keys come from (derived) or are
// sealed under (imported); the chips written so far are generation 1.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('master_generations')
    .addColumn('mode', text(dialect), (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('check_value', text(dialect), (c) => c.notNull())
    .addColumn('key_ids', text(dialect))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('retired_at', 'bigint')
    .addPrimaryKeyConstraint('master_generations_pk', ['mode', 'generation'])
    // A key is one generation for good: a retired key never comes back as a new one.
    .addUniqueConstraint('master_generations_check_value', ['mode', 'check_value'])
    .execute();
  await sql`insert into master_generations (mode, generation, check_value, key_ids, created_at, retired_at)
    select mode, 1, check_value, null, recorded_at, null from master_key_checks`.execute(db);
  await db.schema.dropTable('master_key_checks').execute();
  await db.schema
    .alterTable('chips')
    .addColumn('master_generation', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  // What still depends on a generation (master status, retire, start-up) is found without a scan.
  await db.schema.createIndex('chips_master_generation').on('chips').columns(['mode', 'master_generation']).execute();
}
