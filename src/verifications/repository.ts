// All SQL on verifications.
import { sql } from 'kysely';
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

/**
 * The genuine verifications of these tags scanned since `since` with any of these URL hashes (page reloads;
 * the caller filters pairs and times). Served by the partial index on genuine scans (migration 0011).
 */
export const genuineByUrlHashes = (db: Executor, tagIds: string[], urlHashes: string[], since: number) =>
  db
    .selectFrom('verifications')
    .selectAll()
    .where('tag_id', 'in', tagIds)
    // The partial index's own condition, so that both planners can use it (test/verifications/genuine-index.test.ts).
    .where('genuine', '=', sql.lit(1))
    .where('scanned_at', '>=', since)
    .where('url_hash', 'in', urlHashes)
    .orderBy('scanned_at');

export async function findGenuineByUrlHashes(db: Executor, tagIds: string[], urlHashes: string[], since: number): Promise<VerificationRow[]> {
  if (tagIds.length === 0) return [];
  return genuineByUrlHashes(db, tagIds, urlHashes, since).execute();
}
