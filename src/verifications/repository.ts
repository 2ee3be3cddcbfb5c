// All SQL on verifications.
import type { Executor } from '../db/database.js';
import { isId } from '../ids.js';
import { executeShaped } from '../db/precompiled.js';
import type { VerificationsTable } from '../db/schema.js';
import type { World } from '../world.js';
import { inChunks } from '../db/chunked.js';

export type VerificationRow = VerificationsTable;

export async function insertVerifications(db: Executor, rows: VerificationRow[]): Promise<void> {
  await inChunks(rows, (part) => executeShaped(db, 'insertVerifications', part, (d, p) => d.insertInto('verifications').values(p)));
}

export async function findVerification(db: Executor, world: World, id: string): Promise<VerificationRow | undefined> {
  if (!isId('vrf', id)) return undefined;
  return db.selectFrom('verifications').selectAll().where('id', '=', id).where('team_id', '=', world.teamId).where('mode', '=', world.mode).executeTakeFirst();
}

/** The genuine verifications of these tags with any of these URL hashes (page reloads; the caller filters pairs and times). */
export async function findGenuineByUrlHashes(db: Executor, tagIds: string[], urlHashes: string[]): Promise<VerificationRow[]> {
  if (tagIds.length === 0) return [];
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('tag_id', 'in', tagIds)
    .where('url_hash', 'in', urlHashes)
    .where('genuine', '=', 1)
    .orderBy('scanned_at')
    .execute();
}
