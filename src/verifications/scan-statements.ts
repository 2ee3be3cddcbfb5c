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

/** A batch's outcome: the chips' counters and session pointers, the sessions it opened, its verifications. */
export async function writeBatchOutcomes(db: Executor, chips: ChipProgress[], sessions: SessionRow[], verifications: VerificationRow[]): Promise<void> {
  if (onPostgres(db)) return writeOutcomesPrepared(db, chips, sessions, verifications);
  await saveChipProgress(db, chips);
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

const CHIP_PROGRESS: Columns<ChipProgress> = [
  ['tag_id', 'text'],
  ['last_counter', 'integer'],
  ['session_id', 'text'],
  ['session_expires_at', 'bigint'],
];
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

/** One statement, whatever the batch holds (an empty array inserts or updates nothing). */
async function writeOutcomesPrepared(db: Executor, chips: ChipProgress[], sessions: SessionRow[], verifications: VerificationRow[]): Promise<void> {
  const progress = unnested(chips, CHIP_PROGRESS);
  const opened = unnested(sessions, SESSIONS);
  const inserted = unnested(verifications, VERIFICATIONS);
  await sql`/* prepared: tapproof_scan_outcomes */
    WITH progress AS (
      UPDATE chips SET last_counter = p.last_counter, session_id = p.session_id, session_expires_at = p.session_expires_at
      FROM ${progress.values} AS p(${progress.names}) WHERE chips.tag_id = p.tag_id
    ), opened AS (
      INSERT INTO sessions (${opened.names}) SELECT * FROM ${opened.values}
    )
    INSERT INTO verifications (${inserted.names}) SELECT * FROM ${inserted.values}`.execute(db);
}
