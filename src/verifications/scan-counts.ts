// Scan statistics kept as counts per world, UTC day, reason and country (table scan_counts,
// docs/read-api.md): folded from each batch of stored verifications and added in the
// transaction that stores them, so a statistics request reads counts, never verifications.
import type { Executor } from '../db/database.js';
import { addDayCounts, findDayCounts, inKeyOrder, utcDay } from '../db/day-counts.js';
import type { ScanCountsTable, VerificationsTable } from '../db/schema.js';
import type { World } from '../world.js';

export { utcDay };

export type ScanCountRow = ScanCountsTable;
type Counted = Pick<VerificationsTable, 'team_id' | 'mode' | 'scanned_at' | 'reason' | 'country'>;

const MICROS_PER_DAY = 86_400_000_000;

/** One count row per (world, day, reason, country) of a batch, in key order. */
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
  return inKeyOrder(counts);
}

/** Adds each row's count to its stored count (rows must have distinct keys, as foldScanCounts gives). */
export const addScanCounts = (db: Executor, rows: readonly ScanCountRow[]) =>
  addDayCounts(db, 'scan_counts', ['team_id', 'mode', 'day', 'reason', 'country'], rows);

/** The counts of a world's days from `since` to `until` (both YYYY-MM-DD, inclusive). */
export const findScanCounts = (db: Executor, world: World, since: string, until: string) => findDayCounts(db, 'scan_counts', world, since, until);
