// All SQL on sessions.
import type { Executor } from '../db/database.js';
import { isId } from '../ids.js';
import { executeShaped } from '../db/precompiled.js';
import type { SessionsTable } from '../db/schema.js';
import type { World } from '../world.js';

export type SessionRow = SessionsTable;

export async function insertSessions(db: Executor, rows: SessionRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await executeShaped(db, 'insertSessions', rows.slice(i, i + 500), (d, part) => d.insertInto('sessions').values(part));
}

export async function findSession(db: Executor, world: World, id: string): Promise<SessionRow | undefined> {
  if (!isId('ses', id)) return undefined;
  return db.selectFrom('sessions').selectAll().where('id', '=', id).where('team_id', '=', world.teamId).where('mode', '=', world.mode).executeTakeFirst();
}

export async function sessionVerificationIds(db: Executor, sessionId: string): Promise<string[]> {
  const rows = await db.selectFrom('verifications').select('id').where('session_id', '=', sessionId).orderBy('scanned_at').orderBy('id').execute();
  return rows.map((r) => r.id);
}
