import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// Rekeying a configured chip through the writer (docs/writer.md, "Rekey"). The key version the chip is
// being moved to, and the master generation its keys are derived from, are recorded before the first
// ChangeKey, so that while a rekey is unfinished a scan is also tried with those keys (only such chips
// pay for a second try), and a rerun finishes with the very same keys. An imported chip may come with its
// application key 0, sealed like its SDM keys, so that it can be rekeyed too. A write says which
// operation it runs; the writes made before this are personalizations.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('chips').addColumn('pending_key_version', 'integer').execute();
  await db.schema.alterTable('chips').addColumn('pending_master_generation', 'integer').execute();
  await db.schema.alterTable('chips').addColumn('app_master_key_sealed', text(dialect)).execute();
  await db.schema
    .alterTable('writer_sessions')
    .addColumn('operation', text(dialect), (c) => c.notNull().defaultTo('personalize'))
    .execute();
}
