// All SQL on verifications.
import type { Executor } from '../db/database.js';
import type { VerificationsTable } from '../db/schema.js';
import type { World } from '../tags/repository.js';

export type VerificationRow = VerificationsTable;

export async function insertVerification(db: Executor, row: VerificationRow): Promise<void> {
  await db.insertInto('verifications').values(row).execute();
}

export async function findVerification(db: Executor, world: World, id: string): Promise<VerificationRow | undefined> {
  return db.selectFrom('verifications').selectAll().where('id', '=', id).where('team_id', '=', world.teamId).where('mode', '=', world.mode).executeTakeFirst();
}

/** The genuine verification of this exact scanned URL on the tag since `since` (a page reload). */
export async function findOriginalVerification(db: Executor, tagId: string, urlHash: string, since: number): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('tag_id', '=', tagId)
    .where('url_hash', '=', urlHash)
    .where('genuine', '=', 1)
    .where('scanned_at', '>=', since)
    .orderBy('scanned_at')
    .limit(1)
    .executeTakeFirst();
}
