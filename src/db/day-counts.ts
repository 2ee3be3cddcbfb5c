// Counts kept per world and UTC day (scan_counts per reason and country, signal_counts per
// signal, flagged_counts per country), added to in the transaction that stores what they count: statistics read counts,
// never the rows counted, so a window of a busy team's statistics reads a few hundred rows.
import { sql } from 'kysely';
import type { Executor } from './database.js';
import type { Database } from './schema.js';
import { inChunks } from './chunked.js';
import { executeShaped } from './precompiled.js';
import type { World } from '../world.js';
import { inWorld } from './in-world.js';

type CountTable = 'scan_counts' | 'signal_counts' | 'flagged_counts';

/** The UTC calendar day (YYYY-MM-DD) of a time in microseconds. */
export const utcDay = (micros: number) => new Date(Math.floor(micros / 1000)).toISOString().slice(0, 10);

/** A batch's count rows in key order: PostgreSQL's upserts then lock the rows in one order, and concurrent batches never deadlock. */
export const inKeyOrder = <R>(counts: Map<string, R>): R[] => [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);

/** Adds each row's count to its stored count, one upsert per chunk; `key` is the table's primary key, rows must have distinct keys. */
export async function addDayCounts<T extends CountTable>(
  db: Executor,
  table: T,
  key: readonly (keyof Database[T] & string)[],
  rows: readonly Database[T][],
): Promise<void> {
  // Compiled once per shape, like the batch's other inserts: this runs in every commit of scans.
  await inChunks([...rows], (part) =>
    executeShaped(db, `addDayCounts ${table}`, part, (d, p) =>
      d
        .insertInto(table as CountTable)
        .values(p as never)
        .onConflict((oc) => oc.columns(key as never).doUpdateSet({ count: sql`${sql.table(table)}.count + excluded.count` })),
    ),
  );
}

/** The counts of a world's days from `since` to `until` (both YYYY-MM-DD, inclusive), read off the primary key. */
export async function findDayCounts<T extends CountTable>(db: Executor, table: T, world: World, since: string, until: string): Promise<Database[T][]> {
  const rows = await db
    .selectFrom(table as CountTable)
    .selectAll()
    .$call(inWorld(world))
    .where('day', '>=', since)
    .where('day', '<=', until)
    .execute();
  return rows as Database[T][];
}
