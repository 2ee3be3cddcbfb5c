// The throttle's rows (sign_in_failures): one per counted attempt of a subject (an account, an address,
// an account from one address), so that a count is a count of rows within the window.
import { sql } from 'kysely';
import { onPostgres, type Executor } from '../db/database.js';

/**
 * Holds the subjects for the rest of `trx`, so that two processes counting one subject take turns. On
 * PostgreSQL a transaction-scoped advisory lock per subject, taken in one order so that two callers never
 * wait on each other; SQLite's write transactions begin immediate and are already one at a time.
 */
export async function lockSubjects(trx: Executor, subjects: string[]): Promise<void> {
  if (!onPostgres(trx)) return;
  for (const subject of [...subjects].sort()) await sql`select pg_advisory_xact_lock(hashtextextended(${subject}, 0))`.execute(trx);
}

/** Attempts counted for `subject` since `since`: how many, the oldest (which ends a wait first) and the newest. */
export async function failuresSince(db: Executor, subject: string, since: number): Promise<{ count: number; oldest: number | null; newest: number | null }> {
  const row = await db
    .selectFrom('sign_in_failures')
    .select([db.fn.countAll<number>().as('n'), db.fn.min('failed_at').as('oldest'), db.fn.max('failed_at').as('newest')])
    .where('subject', '=', subject)
    .where('failed_at', '>=', since)
    .executeTakeFirst();
  const time = (value: unknown) => (value == null ? null : Number(value));
  return { count: Number(row?.n ?? 0), oldest: time(row?.oldest), newest: time(row?.newest) };
}

export async function insertFailure(db: Executor, subject: string, at: number): Promise<void> {
  await db.insertInto('sign_in_failures').values({ subject, failed_at: at }).execute();
}

/** Takes back one counted attempt: `at` is unique within its subject (see throttle.ts). */
export async function deleteFailure(db: Executor, subject: string, at: number): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('subject', '=', subject).where('failed_at', '=', at).execute();
}

/** Forgets failures older than `before` (they no longer count). */
export async function pruneFailures(db: Executor, before: number): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('failed_at', '<', before).execute();
}
