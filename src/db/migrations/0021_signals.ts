import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// Counterfeit signals (docs/signals.md). A verification's signals are a column, NULL when it has
// none, and the flagged ones are a partial index in time order per world: ordinary scans (nearly
// all of them) enter no new index, so the verify path writes no new B-tree leaf for them. The chip
// remembers what the signals compare a genuine scan against (the previous genuine scan's country
// and time, whether the seal has been seen open), read and advanced under the batch's row lock like
// its counter. Thresholds are per world; counts per world, day and signal feed the statistics.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('verifications').addColumn('signals', text(dialect)).execute();
  await db.schema
    .createIndex('verifications_flagged')
    .on('verifications')
    .columns(['team_id', 'mode', 'scanned_at', 'id'])
    .where(sql.ref('signals'), 'is not', null)
    .execute();
  await db.schema.alterTable('chips').addColumn('last_country', text(dialect)).execute();
  await db.schema.alterTable('chips').addColumn('last_genuine_at', 'bigint').execute();
  await db.schema
    .alterTable('chips')
    .addColumn('tamper_opened', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await backfill(db);
  await db.schema
    .createTable('signal_thresholds')
    .addColumn('team_id', text(dialect), (c) => c.notNull())
    .addColumn('mode', text(dialect), (c) => c.notNull())
    .addColumn('counter_gap', 'integer', (c) => c.notNull())
    .addColumn('country_jump_window', 'integer', (c) => c.notNull())
    .addColumn('replay_burst', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('signal_thresholds_pk', ['team_id', 'mode'])
    .execute();
  // `signal` is a signal's name, or 'flagged' for the scans that carry any.
  await db.schema
    .createTable('signal_counts')
    .addColumn('team_id', text(dialect), (c) => c.notNull())
    .addColumn('mode', text(dialect), (c) => c.notNull())
    .addColumn('day', text(dialect), (c) => c.notNull())
    .addColumn('signal', text(dialect), (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('signal_counts_pk', ['team_id', 'mode', 'day', 'signal'])
    .execute();
}

/** What the chips' past genuine scans say, once (the per-tag genuine index serves each lookup). */
export async function backfill(db: Kysely<any>): Promise<void> {
  await sql`update chips set
      last_genuine_at = (select max(v.scanned_at) from verifications v where v.tag_id = chips.tag_id and v.genuine = 1),
      tamper_opened = case when exists (select 1 from verifications v where v.tag_id = chips.tag_id and v.genuine = 1
        and v.tamper_permanent = 'open') then 1 else 0 end`.execute(db);
  await sql`update chips set last_country = (select v.country from verifications v where v.tag_id = chips.tag_id
      and v.genuine = 1 and v.scanned_at = chips.last_genuine_at order by v.id desc limit 1)
    where last_genuine_at is not null`.execute(db);
}
