import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { scannedDay, text } from './helpers.js';

// Flagged scans counted per world, UTC day and country (docs/read-api.md#statistics), kept like
// signal_counts in the commit that stores them, for the statistics' flagged scans per country (the
// console's map). Only a batch with a flagged scan writes here. An unknown country is '', as in scan_counts.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('flagged_counts')
    .addColumn('team_id', text(dialect), (c) => c.notNull())
    .addColumn('mode', text(dialect), (c) => c.notNull())
    .addColumn('day', text(dialect), (c) => c.notNull())
    .addColumn('country', text(dialect), (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('flagged_counts_pk', ['team_id', 'mode', 'day', 'country'])
    .execute();
  await backfill(db, dialect);
}

/** The flagged scans still stored when the table arrived (the flagged index finds them), counted once. */
export async function backfill(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const day = scannedDay(dialect);
  await sql`insert into flagged_counts (team_id, mode, day, country, count)
    select team_id, mode, ${day}, coalesce(country, ''), count(*) from verifications where signals is not null
    group by team_id, mode, ${day}, coalesce(country, '')`.execute(db);
}
