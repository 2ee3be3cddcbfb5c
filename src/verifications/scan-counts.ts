// Scan statistics kept as counts per world, UTC day, reason and country (table scan_counts,
// docs/read-api.md): folded from each batch of stored verifications and added in the
// transaction that stores them, so a statistics request reads counts, never verifications.
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { ScanCountsTable, VerificationsTable } from '../db/schema.js';
import { inChunks } from '../db/chunked.js';
import { executeShaped } from '../db/precompiled.js';
import type { World } from '../world.js';

export type ScanCountRow = ScanCountsTable;
type Counted = Pick<VerificationsTable, 'team_id' | 'mode' | 'scanned_at' | 'reason' | 'country'>;

/** The UTC calendar day (YYYY-MM-DD) of a time in microseconds. */
export const utcDay = (micros: number) => new Date(Math.floor(micros / 1000)).toISOString().slice(0, 10);

const MICROS_PER_DAY = 86_400_000_000;

/** One count row per (world, day, reason, country) of a batch, in key order (PostgreSQL upserts then lock rows in one order). */
export function foldScanCounts(rows: readonly Counted[]): ScanCountRow[] {
  const counts = new Map<string, ScanCountRow>();
  // Keyed by the day's number: a batch's rows share a day or two, so each day is formatted once, not once per row.
  for (const row of rows) {
    const country = row.country ?? '';
    const key = `${row.team_id}\u0000${row.mode}\u0000${Math.floor(row.scanned_at / MICROS_PER_DAY)}\u0000${row.reason}\u0000${country}`;
    const counted = counts.get(key);
    if (counted) counted.count += 1;
    else counts.set(key, { team_id: row.team_id, mode: row.mode, day: utcDay(row.scanned_at), reason: row.reason, country, count: 1 });
  }
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** Adds each row's count to its stored count (one upsert per chunk; rows must have distinct keys, as foldScanCounts gives). */
export async function addScanCounts(db: Executor, rows: readonly ScanCountRow[]): Promise<void> {
  // Compiled once per shape, like the batch's other inserts: this runs in every commit of scans.
  await inChunks([...rows], (part) =>
    executeShaped(db, 'addScanCounts', part, (d, p) =>
      d
        .insertInto('scan_counts')
        .values(p)
        .onConflict((oc) => oc.columns(['team_id', 'mode', 'day', 'reason', 'country']).doUpdateSet({ count: sql`scan_counts.count + excluded.count` })),
    ),
  );
}

/** The counts of a world's days from `since` to `until` (both YYYY-MM-DD, inclusive), read off the primary key. */
export async function findScanCounts(db: Executor, world: World, since: string, until: string): Promise<ScanCountRow[]> {
  return db
    .selectFrom('scan_counts')
    .selectAll()
    .where('team_id', '=', world.teamId)
    .where('mode', '=', world.mode)
    .where('day', '>=', since)
    .where('day', '<=', until)
    .execute();
}
