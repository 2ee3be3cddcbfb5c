// The deployment's own settings, one row per name (table settings): markers such as the first start's,
// and what the master keys keep of themselves (src/master-keys/sources.ts).
import type { Executor } from './database.js';

/** Writes `name` unless it exists; true when this call wrote it (of processes racing, exactly one). */
export async function claimSetting(db: Executor, name: string, value: string): Promise<boolean> {
  const claimed = await db
    .insertInto('settings')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst();
  return Number(claimed.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** One read of a small table: it fails when the database cannot answer (readiness). */
export async function probeDatabase(db: Executor): Promise<void> {
  await db.selectFrom('settings').select('name').limit(1).execute();
}

/** Writes `name`; an existing one is an error (the caller owns the name). */
export async function insertSetting(db: Executor, name: string, value: string): Promise<void> {
  await db.insertInto('settings').values({ name, value }).execute();
}

export async function deleteSetting(db: Executor, name: string): Promise<void> {
  await db.deleteFrom('settings').where('name', '=', name).execute();
}

/** The settings whose names start with `prefix` (LIKE's `_` matches any character: callers check names exactly). */
export function settingsStartingWith(db: Executor, prefix: string): Promise<{ name: string; value: string }[]> {
  return db.selectFrom('settings').select(['name', 'value']).where('name', 'like', `${prefix}%`).execute();
}
