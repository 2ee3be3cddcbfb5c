// The group commit's statements on PostgreSQL (src/verifications/scan-writer.ts).
// A batch there is BEGIN, the chip lock, the writes, COMMIT: every statement is a
// round trip on the batch's critical path, and a multi-row statement whose text
// changes with its row count is parsed and planned anew by PostgreSQL each time.
// So each statement here has one text for any batch (arrays bound as parameters and
// unnested, not value lists) and is sent as a named prepared statement
// (src/db/database.ts, `/* prepared: … */`), and the three writes (chip progress,
// opened sessions, verifications) are one statement: data-modifying CTEs.
// SQLite keeps the Kysely statements of the repositories: there a statement costs
// no round trip, its multi-row shapes are kept prepared (src/db/database.ts), and the
// writer's transaction (BEGIN IMMEDIATE) already holds the database's write lock.
import { sql } from 'kysely';
import { onPostgres, type Executor } from '../db/database.js';
import { insertSessions, type SessionRow } from '../sessions/repository.js';
import { lockChips, saveChipProgress, type ChipRow } from '../tag-chips/repository.js';
import { insertVerifications, type VerificationRow } from './repository.js';

export type LockedChip = ChipRow & { session_duration: number };

/** The chips of a batch's tags, locked until its transaction ends, with their tag's current session_duration. */
export function lockBatchChips(db: Executor, tagIds: string[]): Promise<LockedChip[]> {
  return onPostgres(db) ? lockChipsPrepared(db, tagIds) : lockChips(db, tagIds);
}

/** A batch's outcome: the chips' counters and session pointers, the sessions it opened, its verifications. */
export async function writeBatchOutcomes(db: Executor, chips: ChipRow[], sessions: SessionRow[], verifications: VerificationRow[]): Promise<void> {
  if (onPostgres(db)) return writeOutcomesPrepared(db, chips, sessions, verifications);
  await saveChipProgress(db, chips);
  await insertSessions(db, sessions);
  await insertVerifications(db, verifications);
}

/** FOR UPDATE in tag order, so that two batches never wait on each other in a cycle. */
async function lockChipsPrepared(db: Executor, tagIds: string[]): Promise<LockedChip[]> {
  // The tag's current session_duration (PATCH may change it) in a subquery, so that only chips are locked.
  // Columns by name, not chips.*: a prepared statement whose result columns change (a later migration
  // adding one while older servers still run) fails with "cached plan must not change result type".
  const { rows } = await sql<LockedChip>`/* prepared: tapproof_lock_chips */
    SELECT tag_id, team_id, mode, protocol, uid, crypto, mirroring, key_source, key_version, sdm_meta_read_key_sealed,
           sdm_file_read_key_sealed, params, mac_input_from, write_generation, last_counter, session_id, session_expires_at, created_at,
           (SELECT tags.session_duration FROM tags WHERE tags.id = chips.tag_id) AS session_duration
    FROM chips WHERE chips.tag_id = ANY(${tagIds}::text[]) ORDER BY chips.tag_id FOR UPDATE`.execute(db);
  return rows;
}

const column = <R, K extends keyof R>(rows: R[], key: K): R[K][] => rows.map((row) => row[key]);

/** One statement, whatever the batch holds (an empty array inserts or updates nothing). */
async function writeOutcomesPrepared(db: Executor, chips: ChipRow[], sessions: SessionRow[], verifications: VerificationRow[]): Promise<void> {
  await sql`/* prepared: tapproof_scan_outcomes */
    WITH progress AS (
      UPDATE chips SET last_counter = p.last_counter, session_id = p.session_id, session_expires_at = p.session_expires_at
      FROM unnest(${column(chips, 'tag_id')}::text[], ${column(chips, 'last_counter')}::integer[], ${column(chips, 'session_id')}::text[],
                  ${column(chips, 'session_expires_at')}::bigint[]) AS p(tag_id, last_counter, session_id, session_expires_at)
      WHERE chips.tag_id = p.tag_id
    ), opened AS (
      INSERT INTO sessions (id, team_id, mode, tag_id, opened_at, expires_at)
      SELECT * FROM unnest(${column(sessions, 'id')}::text[], ${column(sessions, 'team_id')}::text[], ${column(sessions, 'mode')}::text[],
                           ${column(sessions, 'tag_id')}::text[], ${column(sessions, 'opened_at')}::bigint[], ${column(sessions, 'expires_at')}::bigint[])
    )
    INSERT INTO verifications (id, team_id, mode, tag_id, genuine, reason, read_counter, tamper_permanent, tamper_current, session_id,
                               scanned_at, url_hash, client_ip, country, write_generation)
    SELECT * FROM unnest(${column(verifications, 'id')}::text[], ${column(verifications, 'team_id')}::text[], ${column(verifications, 'mode')}::text[],
                         ${column(verifications, 'tag_id')}::text[], ${column(verifications, 'genuine')}::integer[], ${column(verifications, 'reason')}::text[],
                         ${column(verifications, 'read_counter')}::integer[], ${column(verifications, 'tamper_permanent')}::text[],
                         ${column(verifications, 'tamper_current')}::text[], ${column(verifications, 'session_id')}::text[],
                         ${column(verifications, 'scanned_at')}::bigint[], ${column(verifications, 'url_hash')}::text[],
                         ${column(verifications, 'client_ip')}::text[], ${column(verifications, 'country')}::text[],
                         ${column(verifications, 'write_generation')}::integer[])`.execute(db);
}
