// All SQL on sessions.
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { isId } from '../ids.js';
import { executeShaped } from '../db/precompiled.js';
import type { SessionsTable } from '../db/schema.js';
import type { World } from '../world.js';
import { inChunks } from '../db/chunked.js';
import { inWorld } from '../db/in-world.js';

export type SessionRow = SessionsTable;

export async function insertSessions(db: Executor, rows: SessionRow[]): Promise<void> {
  await inChunks(rows, (part) => executeShaped(db, 'insertSessions', part, (d, p) => d.insertInto('sessions').values(p)));
}

export async function findSession(db: Executor, world: World, id: string): Promise<SessionRow | undefined> {
  if (!isId('ses', id)) return undefined;
  return db.selectFrom('sessions').selectAll().where('id', '=', id).$call(inWorld(world)).executeTakeFirst();
}

/** A session's verifications: genuine scans of its tag inside its window (the per-tag index of migration 0015). */
export const sessionVerifications = (db: Executor, session: SessionRow) =>
  db
    .selectFrom('verifications')
    .select('id')
    .where('tag_id', '=', session.tag_id)
    .where('genuine', '=', sql.lit(1))
    .where('scanned_at', '>=', session.opened_at)
    .where('scanned_at', '<=', session.expires_at)
    .where('session_id', '=', session.id)
    .orderBy('scanned_at')
    .orderBy('id');

export async function sessionVerificationIds(db: Executor, session: SessionRow): Promise<string[]> {
  return (await sessionVerifications(db, session).execute()).map((r) => r.id);
}
