// Flagged scans counted per world, UTC day and signal (table signal_counts, src/db/day-counts.ts),
// and per world, UTC day and country (flagged_counts), folded from each batch of stored
// verifications like scan_counts. The row of signal 'flagged' counts the scans with any signal.
import type { Executor } from '../db/database.js';
import { addDayCounts, findDayCounts, inKeyOrder, utcDay } from '../db/day-counts.js';
import type { FlaggedCountsTable, SignalCountsTable, VerificationsTable } from '../db/schema.js';
import type { World } from '../world.js';

export type SignalCountRow = SignalCountsTable;
export type FlaggedCountRow = FlaggedCountsTable;
type Counted = Pick<VerificationsTable, 'team_id' | 'mode' | 'scanned_at' | 'signals'>;

export const FLAGGED = 'flagged';

/** One row per (world, day, signal) of a batch's flagged scans, in key order. */
export function foldSignalCounts(rows: readonly Counted[]): SignalCountRow[] {
  const counts = new Map<string, SignalCountRow>();
  for (const row of rows) {
    if (row.signals === null) continue;
    const day = utcDay(row.scanned_at);
    for (const signal of [FLAGGED, ...row.signals.split(',')]) {
      const key = `${row.team_id}\u0000${row.mode}\u0000${day}\u0000${signal}`;
      const counted = counts.get(key);
      if (counted) counted.count += 1;
      else counts.set(key, { team_id: row.team_id, mode: row.mode, day, signal, count: 1 });
    }
  }
  return inKeyOrder(counts);
}

/** SQLite: adds the counts (PostgreSQL does it in the outcome statement). */
export const addSignalCounts = (db: Executor, rows: readonly SignalCountRow[]) => addDayCounts(db, 'signal_counts', ['team_id', 'mode', 'day', 'signal'], rows);

export const findSignalCounts = (db: Executor, world: World, since: string, until: string) => findDayCounts(db, 'signal_counts', world, since, until);

/** One row per (world, day, country) of a batch's flagged scans, in key order ('' for an unknown country, as scan_counts). */
export function foldFlaggedCounts(rows: readonly (Counted & Pick<VerificationsTable, 'country'>)[]): FlaggedCountRow[] {
  const counts = new Map<string, FlaggedCountRow>();
  for (const row of rows) {
    if (row.signals === null) continue;
    const day = utcDay(row.scanned_at);
    const country = row.country ?? '';
    const key = `${row.team_id}\u0000${row.mode}\u0000${day}\u0000${country}`;
    const counted = counts.get(key);
    if (counted) counted.count += 1;
    else counts.set(key, { team_id: row.team_id, mode: row.mode, day, country, count: 1 });
  }
  return inKeyOrder(counts);
}

/** SQLite: adds the counts (PostgreSQL does it in the outcome statement). */
export const addFlaggedCounts = (db: Executor, rows: readonly FlaggedCountRow[]) =>
  addDayCounts(db, 'flagged_counts', ['team_id', 'mode', 'day', 'country'], rows);

export const findFlaggedCounts = (db: Executor, world: World, since: string, until: string) => findDayCounts(db, 'flagged_counts', world, since, until);
