// The windows verification.flagged is coalesced over (table flag_windows, src/verifications/flagged-events.ts).
import { lockedForUpdate, onPostgres, type Executor } from '../db/database.js';
import type { FlagWindowsTable } from '../db/schema.js';

export type FlagWindowRow = FlagWindowsTable;

/** The windows of `tagIds`, locked until the transaction ends (PostgreSQL): the summaries job waits for the commit. */
export function lockWindows(db: Executor, tagIds: string[]): Promise<FlagWindowRow[]> {
  return lockedForUpdate(db, db.selectFrom('flag_windows').selectAll().where('tag_id', 'in', tagIds).orderBy('tag_id').orderBy('signal')).execute();
}

export async function saveWindows(db: Executor, rows: FlagWindowRow[]): Promise<void> {
  for (const row of rows)
    await db
      .insertInto('flag_windows')
      .values(row)
      .onConflict((oc) => oc.columns(['tag_id', 'signal']).doUpdateSet({ opened_at: row.opened_at, held: row.held, last_held_id: row.last_held_id }))
      .execute();
}

/**
 * Up to `limit` windows that opened before `before` and hold scans back, oldest first, locked for the
 * transaction; on PostgreSQL a window another process holds is skipped, not waited for.
 */
export function dueWindows(db: Executor, before: number, limit: number): Promise<FlagWindowRow[]> {
  const query = db.selectFrom('flag_windows').selectAll().where('held', '>', 0).where('opened_at', '<', before).orderBy('opened_at').limit(limit);
  return onPostgres(db) ? query.forUpdate().skipLocked().execute() : query.execute();
}

/** The window's held scans were announced: none held any more. */
export async function clearHeld(db: Executor, row: Pick<FlagWindowRow, 'tag_id' | 'signal'>): Promise<void> {
  await db.updateTable('flag_windows').set({ held: 0, last_held_id: null }).where('tag_id', '=', row.tag_id).where('signal', '=', row.signal).execute();
}
