// All SQL on sessions.
import type { Executor } from '../db/database.js';
import { isId } from '../ids.js';
import { executeShaped } from '../db/precompiled.js';
import type { SessionsTable } from '../db/schema.js';
import type { World } from '../world.js';
import { inChunks } from '../db/chunked.js';

export type SessionRow = SessionsTable;

export async function insertSessions(db: Executor, rows: SessionRow[]): Promise<void> {
  await inChunks(rows, (part) => executeShaped(db, 'insertSessions', part, (d, p) => d.insertInto('sessions').values(p)));
}

export async function findSession(db: Executor, world: World, id: string): Promise<SessionRow | undefined> {
  if (!isId('ses', id)) return undefined;
  return db.selectFrom('sessions').selectAll().where('id', '=', id).where('team_id', '=', world.teamId).where('mode', '=', world.mode).executeTakeFirst();
}

export async function sessionVerificationIds(db: Executor, sessionId: string): Promise<string[]> {
  const rows = await db.selectFrom('verifications').select('id').where('session_id', '=', sessionId).orderBy('scanned_at').orderBy('id').execute();
  return rows.map((r) => r.id);
}
