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
import { lockChips, saveChipProgress, type ChipProgress, type LockedChip } from '../tag-chips/repository.js';
import { insertVerifications, type VerificationRow } from './repository.js';

/** The chips of a batch's tags, locked until its transaction ends, with their tag's current session_duration. */
export function lockBatchChips(db: Executor, tagIds: string[]): Promise<LockedChip[]> {
  return onPostgres(db) ? lockChipsPrepared(db, tagIds) : lockChips(db, tagIds);
}

/** A chip a batch advances: as the batch read it, and its new counter and session pointer. */
export interface ChipAdvance {
  before: LockedChip;
  after: ChipProgress;
}

/** The error of a PostgreSQL outcome statement that found a chip changed since `before` (migration 0012): nothing was written. */
export const isStaleChips = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'TP001';

/**
 * A batch's outcome: the chips' counters and session pointers, the sessions it opened, its verifications.
 * PostgreSQL writes them only if every chip is still as `before` (else nothing, and `isStaleChips`):
 * under the batch's row locks that always holds, and without them (a batch decided on the chips as this
 * process last committed them, scan-writer.ts) it is what makes the batch safe across processes.
 */
export async function writeBatchOutcomes(db: Executor, chips: ChipAdvance[], sessions: SessionRow[], verifications: VerificationRow[]): Promise<void> {
  if (onPostgres(db)) return writeOutcomesPrepared(db, chips, sessions, verifications);
  await saveChipProgress(db, chips.map((c) => c.after));
  await insertSessions(db, sessions);
  await insertVerifications(db, verifications);
}

/** FOR UPDATE in tag order, so that two batches never wait on each other in a cycle. */
async function lockChipsPrepared(db: Executor, tagIds: string[]): Promise<LockedChip[]> {
  // The tag's current session_duration (PATCH may change it) in a subquery, so that only chips are locked.
  // Only what the batch decides on, by name: not chips.* (the sealed keys are the bulk of a row), and a prepared
  // statement whose result columns change (a later migration adding one while older servers run) would fail
  // with "cached plan must not change result type".
  const { rows } = await sql<LockedChip>`/* prepared: tapproof_lock_chips */
    SELECT tag_id, write_generation, last_counter, session_id, session_expires_at,
           (SELECT tags.session_duration FROM tags WHERE tags.id = chips.tag_id) AS session_duration
    FROM chips WHERE chips.tag_id = ANY(${tagIds}::text[]) ORDER BY chips.tag_id FOR UPDATE`.execute(db);
  return rows;
}

/** Columns and their PostgreSQL types: each becomes one array parameter, unnested into rows. */
type Columns<R> = readonly (readonly [keyof R & string, string])[];

/** `(a, b, …)` and `unnest($1::t[], $2::u[], …)`: one text whatever the row count, and one list for both. */
function unnested<R>(rows: R[], columns: Columns<R>) {
  return {
    names: sql.join(columns.map(([name]) => sql.ref(name))),
    values: sql`unnest(${sql.join(columns.map(([name, type]) => sql`${rows.map((row) => row[name])}::${sql.raw(type)}[]`))})`,
  };
}

type ChipAdvanceRow = ChipProgress & { was_generation: number; was_counter: number | null; was_session_id: string | null; was_session_expires_at: number | null; was_session_duration: number };
const CHIP_ADVANCES: Columns<ChipAdvanceRow> = [
  ['tag_id', 'text'],
  ['last_counter', 'integer'],
  ['session_id', 'text'],
  ['session_expires_at', 'bigint'],
  ['was_generation', 'integer'],
  ['was_counter', 'integer'],
  ['was_session_id', 'text'],
  ['was_session_expires_at', 'bigint'],
  ['was_session_duration', 'integer'],
];
const advanceRow = ({ before, after }: ChipAdvance): ChipAdvanceRow => ({
  ...after,
  was_generation: before.write_generation,
  was_counter: before.last_counter,
  was_session_id: before.session_id,
  was_session_expires_at: before.session_expires_at,
  was_session_duration: before.session_duration,
});
const SESSIONS: Columns<SessionRow> = [
  ['id', 'text'],
  ['team_id', 'text'],
  ['mode', 'text'],
  ['tag_id', 'text'],
  ['opened_at', 'bigint'],
  ['expires_at', 'bigint'],
];
const VERIFICATIONS: Columns<VerificationRow> = [
  ['id', 'text'],
  ['team_id', 'text'],
  ['mode', 'text'],
  ['tag_id', 'text'],
  ['genuine', 'integer'],
  ['reason', 'text'],
  ['read_counter', 'integer'],
  ['tamper_permanent', 'text'],
  ['tamper_current', 'text'],
  ['session_id', 'text'],
  ['scanned_at', 'bigint'],
  ['url_hash', 'text'],
  ['client_ip', 'text'],
  ['country', 'text'],
  ['write_generation', 'integer'],
];

/**
 * One statement, whatever the batch holds (an empty array inserts or updates nothing). A chip is advanced
 * only if it is as the batch read it; the guard, evaluated once every update has been counted, aborts the
 * whole statement (and its implicit transaction) unless all were.
 */
async function writeOutcomesPrepared(db: Executor, chips: ChipAdvance[], sessions: SessionRow[], verifications: VerificationRow[]): Promise<void> {
  const progress = unnested(chips.map(advanceRow), CHIP_ADVANCES);
  const opened = unnested(sessions, SESSIONS);
  const inserted = unnested(verifications, VERIFICATIONS);
  await sql`/* prepared: tapproof_scan_outcomes_guarded */
    WITH progress AS (
      UPDATE chips SET last_counter = p.last_counter, session_id = p.session_id, session_expires_at = p.session_expires_at
      FROM ${progress.values} AS p(${progress.names})
      WHERE chips.tag_id = p.tag_id AND chips.write_generation = p.was_generation
        AND chips.last_counter IS NOT DISTINCT FROM p.was_counter AND chips.session_id IS NOT DISTINCT FROM p.was_session_id
        AND chips.session_expires_at IS NOT DISTINCT FROM p.was_session_expires_at
        AND (SELECT tags.session_duration FROM tags WHERE tags.id = chips.tag_id) = p.was_session_duration
      RETURNING chips.tag_id
    ), opened AS (
      INSERT INTO sessions (${opened.names}) SELECT * FROM ${opened.values}
    )
    INSERT INTO verifications (${inserted.names}) SELECT * FROM ${inserted.values}
    WHERE tapproof_chips_unchanged((SELECT count(*) FROM progress), ${chips.length}::integer)`.execute(db);
}
