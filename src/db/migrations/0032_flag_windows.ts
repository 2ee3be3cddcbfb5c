import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// verification.flagged coalesced per tag and signal (docs/signals.md#listing-counting-announcing): the
// window each (tag, signal) is in since its last event, and the flagged scans held back in it, which the
// next event (or the window's summary) says it stands for. Read and written under the tag's chip lock in
// the scan's commit, so processes agree on every window.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('flag_windows')
    .addColumn('tag_id', text(dialect), (c) => c.notNull())
    .addColumn('signal', text(dialect), (c) => c.notNull())
    .addColumn('team_id', text(dialect), (c) => c.notNull())
    .addColumn('mode', text(dialect), (c) => c.notNull())
    .addColumn('opened_at', 'bigint', (c) => c.notNull())
    .addColumn('held', 'integer', (c) => c.notNull())
    .addColumn('last_held_id', text(dialect))
    .addPrimaryKeyConstraint('flag_windows_pk', ['tag_id', 'signal'])
    .execute();
  // The summaries job looks for windows that ended with scans held back.
  await db.schema.createIndex('flag_windows_due').on('flag_windows').columns(['opened_at']).where(sql.ref('held'), '>', 0).execute();
}
