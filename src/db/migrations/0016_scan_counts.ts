import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { scannedDay, text } from './helpers.js';

// Scan statistics are read from counts kept per world, UTC day, reason and country, added to
// in the transaction that stores the scans (docs/read-api.md), so that a window of a busy
// team's statistics reads a few hundred rows, never its verifications. An unknown country is
// '' (a primary key column cannot be NULL on PostgreSQL).
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('scan_counts')
    .addColumn('team_id', text(dialect), (c) => c.notNull())
    .addColumn('mode', text(dialect), (c) => c.notNull())
    .addColumn('day', text(dialect), (c) => c.notNull())
    .addColumn('reason', text(dialect), (c) => c.notNull())
    .addColumn('country', text(dialect), (c) => c.notNull().defaultTo(sql.lit('')))
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_counts_pk', ['team_id', 'mode', 'day', 'reason', 'country'])
    .execute();
  await backfill(db, dialect);
}

/** Scans stored before the table existed, counted once. */
export async function backfill(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const day = scannedDay(dialect);
  await sql`insert into scan_counts (team_id, mode, day, reason, country, count)
    select team_id, mode, ${day}, reason, coalesce(country, ''), count(*) from verifications
    group by team_id, mode, ${day}, reason, coalesce(country, '')`.execute(db);
}
