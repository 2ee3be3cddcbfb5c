// Sessions pair two taps of one tag (DESIGN §5): a genuine scan opens a session
// that stays open `session_duration` seconds; a second genuine scan inside that
// window joins and completes it; after the window it is expired and the next
// genuine scan opens a new one. Expiry is a matter of time, so the status is
// computed when read rather than written by a background job.
import type { Db, Executor } from '../db/database.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import type { World } from '../tags/repository.js';
import { setChipSession } from '../tag-chips/repository.js';
import { completeSession, findSession, insertSession, sessionVerificationIds, type SessionRow } from './repository.js';

export type SessionStatus = 'open' | 'completed' | 'expired';

export function sessionStatus(row: SessionRow, now: number): SessionStatus {
  if (row.completed_at !== null) return 'completed';
  return now < row.expires_at ? 'open' : 'expired';
}

/**
 * Places a genuine first scan in a session, inside the scan's transaction,
 * after it won the counter compare-and-set (so scans of one tag arrive here one
 * at a time). `current` is the tag's session pointer as the compare-and-set read it.
 */
export async function placeGenuineScan(
  trx: Executor,
  world: World,
  tag: { id: string; session_duration: number },
  current: { session_id: string | null; session_expires_at: number | null },
  at: number,
): Promise<string> {
  if (current.session_id !== null && current.session_expires_at !== null && at < current.session_expires_at) {
    await completeSession(trx, current.session_id, at);
    await setChipSession(trx, tag.id, null, null);
    return current.session_id;
  }
  const id = newId('ses');
  const expiresAt = at + tag.session_duration * 1_000_000;
  await insertSession(trx, { id, team_id: world.teamId, mode: world.mode, tag_id: tag.id, opened_at: at, expires_at: expiresAt, completed_at: null });
  await setChipSession(trx, tag.id, id, expiresAt);
  return id;
}

export async function getSession(db: Db, world: World, id: string): Promise<{ row: SessionRow; verificationIds: string[] }> {
  const row = await findSession(db.kysely, world, id);
  if (!row) throw new ApiError('NotFound');
  return { row, verificationIds: await sessionVerificationIds(db.kysely, id) };
}
