// All SQL on verifications, and the group commit's write of a batch of scans'
// outcomes (chip progress, opened sessions, verifications). On PostgreSQL each
// statement has one text for any batch (arrays bound as parameters and unnested,
// not value lists) and goes out as a named prepared statement (src/db/database.ts,
// `/* prepared: … */`), and the three writes are one statement (data-modifying
// CTEs): every statement is a round trip on the batch's critical path. SQLite keeps
// the Kysely statements: there a statement costs no round trip.
import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import { onPostgres, type Executor } from '../db/database.js';
import * as sessionsRepo from '../sessions/index.js';
import type { SessionRow } from '../sessions/index.js';
import * as chipsRepo from '../tag-chips/index.js';
import type { ChipProgress, LockedChip } from '../tag-chips/index.js';
import { addScanCounts, foldScanCounts, type ScanCountRow } from './scan-counts.js';
import { addFlaggedCounts, addSignalCounts, foldFlaggedCounts, foldSignalCounts, type FlaggedCountRow, type SignalCountRow } from '../signals/index.js';
import { signalPattern, type Signal } from '../signals/index.js';
import { isId } from '../ids.js';
import { executeCompiledOnce, executeShaped } from '../db/precompiled.js';
import type { Database, VerificationsTable } from '../db/schema.js';
import type { World } from '../world.js';
import { inChunks } from '../db/chunked.js';
import { inWorld } from '../db/in-world.js';

export type VerificationRow = VerificationsTable;

export async function insertVerifications(db: Executor, rows: VerificationRow[]): Promise<void> {
  await inChunks(rows, (part) => executeShaped(db, 'insertVerifications', part, (d, p) => d.insertInto('verifications').values(p)));
}

export async function findVerification(db: Executor, world: World, id: string): Promise<VerificationRow | undefined> {
  if (!isId('vrf', id)) return undefined;
  return db.selectFrom('verifications').selectAll().where('id', '=', id).$call(inWorld(world)).executeTakeFirst();
}

/**
 * The world's verifications among `ids` (a case's scans), in no particular order, each read by its key. SQLite,
 * without statistics, would rather walk the world's range of an index led by (team_id, mode), its whole history,
 * testing every row against the ids; so there the world is read from the rows (`+column`, as in `walk`).
 */
export async function findVerifications(db: Executor, world: World, ids: string[]): Promise<VerificationRow[]> {
  if (ids.length === 0) return [];
  const column = (name: 'team_id' | 'mode') => (onPostgres(db) ? sql.ref<string>(name) : sql<string>`+${sql.ref(name)}`);
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('id', 'in', ids)
    .where(column('team_id'), '=', world.teamId)
    .where(column('mode'), '=', world.mode)
    .execute();
}

/**
 * The tag's genuine scan just before `before` (time, id): the one a country_jump is measured from (docs/signals.md).
 * Served by the per-tag index (tag_id, scanned_at, id).
 */
export function previousGenuine(db: Executor, tagId: string, before: readonly [number, string]): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('tag_id', '=', tagId)
    .where(sql<boolean>`(scanned_at, id) < (${before[0]}, ${before[1]})`)
    .where('genuine', '=', sql.lit(1))
    .orderBy('scanned_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * The genuine verifications of these tags scanned since `since` with any of these URL hashes (page reloads;
 * the caller filters pairs and times). Served by the per-tag index (tag_id, scanned_at, id) of migration 0015.
 */
export const genuineByUrlHashes = (db: Executor, tagIds: string[], urlHashes: string[], since: number) =>
  db
    .selectFrom('verifications')
    .selectAll()
    .where('tag_id', 'in', tagIds)
    .where('genuine', '=', sql.lit(1))
    .where('scanned_at', '>=', since)
    .where('url_hash', 'in', urlHashes)
    .orderBy('scanned_at');

export async function findGenuineByUrlHashes(db: Executor, tagIds: string[], urlHashes: string[], since: number): Promise<VerificationRow[]> {
  if (tagIds.length === 0) return [];
  return genuineByUrlHashes(db, tagIds, urlHashes, since).execute();
}

/**
 * The times of a tag's refused scans after `after`, newest first, at most `limit` (replay_burst counts
 * them, src/signals/detect.ts). The per-tag index (tag_id, scanned_at, id) serves it; genuineness is read from the rows.
 */
export async function refusedTimes(db: Executor, tagId: string, after: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('verifications')
    .select('scanned_at')
    .where('tag_id', '=', tagId)
    .where('scanned_at', '>', after)
    .where('genuine', '=', sql.lit(0))
    .orderBy('scanned_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.scanned_at);
}

/** A chip a batch advances: as the batch read it, and its new counter and session pointer. */
export interface ChipAdvance {
  before: LockedChip;
  after: ChipProgress;
}

/** The error of a PostgreSQL outcome statement that found a chip changed since `before` (migration 0012): nothing was written. */
export const isStaleChips = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'TP001';

/**
 * A batch's outcome: the chips' counters and session pointers, the sessions it opened, its verifications and
 * their counts for the statistics (src/verifications/scan-counts.ts).
 * PostgreSQL writes them only if every chip is still as `before` (else nothing, and `isStaleChips`):
 * under the batch's row locks that always holds, and without them (a batch decided on the chips as this
 * process last committed them, src/verifications/scan-commit.ts) it is what makes the batch safe across processes.
 */
export async function writeOutcomes(db: Executor, chips: ChipAdvance[], sessions: SessionRow[], verifications: VerificationRow[]): Promise<void> {
  if (onPostgres(db)) return writeOutcomesPrepared(db, chips, sessions, verifications);
  await chipsRepo.saveChipProgress(
    db,
    chips.map((c) => c.after),
  );
  await sessionsRepo.insertSessions(db, sessions);
  await insertVerifications(db, verifications);
  await addScanCounts(db, foldScanCounts(verifications));
  await addSignalCounts(db, foldSignalCounts(verifications));
  await addFlaggedCounts(db, foldFlaggedCounts(verifications));
}

/** Columns and their PostgreSQL types: each becomes one array parameter, unnested into rows. */
type Columns<R> = readonly (readonly [keyof R & string, string])[];

/** One array per column, in the list's order: each becomes one parameter, unnested into rows. */
const columnArrays = <R>(rows: R[], columns: Columns<R>): unknown[][] => columns.map(([name]) => rows.map((row) => row[name]));

/** `(a, b, …)` and `unnest($1::t[], $2::u[], …)` over a table's column arrays: one text whatever the row count. */
function unnested(arrays: unknown[][], columns: readonly (readonly [string, string])[]) {
  return {
    names: sql.join(columns.map(([name]) => sql.ref(name))),
    values: sql`unnest(${sql.join(columns.map(([, type], i) => sql`${arrays[i]}::${sql.raw(type)}[]`))})`,
  };
}

type ChipAdvanceRow = ChipProgress & {
  was_generation: number;
  was_counter: number | null;
  was_session_id: string | null;
  was_session_expires_at: number | null;
  was_session_duration: number;
};
const CHIP_ADVANCES: Columns<ChipAdvanceRow> = [
  ['tag_id', 'text'],
  ['last_counter', 'integer'],
  ['session_id', 'text'],
  ['session_expires_at', 'bigint'],
  ['last_country', 'text'],
  ['last_genuine_at', 'bigint'],
  ['tamper_opened', 'integer'],
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
const SCAN_COUNTS: Columns<ScanCountRow> = [
  ['team_id', 'text'],
  ['mode', 'text'],
  ['day', 'text'],
  ['reason', 'text'],
  ['country', 'text'],
  ['count', 'bigint'],
];
const SIGNAL_COUNTS: Columns<SignalCountRow> = [
  ['team_id', 'text'],
  ['mode', 'text'],
  ['day', 'text'],
  ['signal', 'text'],
  ['count', 'bigint'],
];
const FLAGGED_COUNTS: Columns<FlaggedCountRow> = [
  ['team_id', 'text'],
  ['mode', 'text'],
  ['day', 'text'],
  ['country', 'text'],
  ['count', 'bigint'],
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
  ['signals', 'text'],
];

/**
 * One statement, whatever the batch holds (an empty array inserts or updates nothing). A chip is advanced
 * only if it is as the batch read it; the guard, evaluated once every update has been counted, aborts the
 * whole statement (and its implicit transaction) unless all were.
 */
const PLAIN_VERIFICATIONS = VERIFICATIONS.filter(([name]) => name !== 'signals');

/**
 * The tables of the two outcome statements: a batch without a flagged scan (nearly every one) neither counts
 * signals nor names the signals column, so that it costs no more than before signals existed.
 */
const OUTCOME_TABLES = {
  plain: [CHIP_ADVANCES, SESSIONS, SCAN_COUNTS, null, null, PLAIN_VERIFICATIONS],
  flagged: [CHIP_ADVANCES, SESSIONS, SCAN_COUNTS, SIGNAL_COUNTS, FLAGGED_COUNTS, VERIFICATIONS],
} as const;
type Variant = keyof typeof OUTCOME_TABLES;

/** An outcome statement over its values: each table's column arrays, in OUTCOME_TABLES' order, then the chip count. */
function outcomeStatement(values: unknown[], variant: Variant) {
  let at = 0;
  const [p, o, c, f, g, i] = OUTCOME_TABLES[variant].map((columns) =>
    columns === null ? null : unnested(values.slice(at, (at += columns.length)) as unknown[][], columns),
  );
  const signalled =
    f && g
      ? sql`, signalled AS (
      INSERT INTO signal_counts (${f.names}) SELECT * FROM ${f.values}
      ON CONFLICT (team_id, mode, day, signal) DO UPDATE SET count = signal_counts.count + excluded.count
    ), flagged AS (
      INSERT INTO flagged_counts (${g.names}) SELECT * FROM ${g.values}
      ON CONFLICT (team_id, mode, day, country) DO UPDATE SET count = flagged_counts.count + excluded.count
    )`
      : sql``;
  return sql`/* prepared: ${sql.raw(variant === 'plain' ? 'tapproof_scan_outcomes_guarded' : 'tapproof_scan_outcomes_flagged')} */
    WITH progress AS (
      UPDATE chips SET last_counter = p.last_counter, session_id = p.session_id, session_expires_at = p.session_expires_at,
        last_country = p.last_country, last_genuine_at = p.last_genuine_at, tamper_opened = p.tamper_opened
      FROM ${p!.values} AS p(${p!.names})
      WHERE chips.tag_id = p.tag_id AND chips.write_generation = p.was_generation
        AND chips.last_counter IS NOT DISTINCT FROM p.was_counter AND chips.session_id IS NOT DISTINCT FROM p.was_session_id
        AND chips.session_expires_at IS NOT DISTINCT FROM p.was_session_expires_at
        AND (SELECT tags.session_duration FROM tags WHERE tags.id = chips.tag_id) = p.was_session_duration
      RETURNING chips.tag_id
    ), opened AS (
      INSERT INTO sessions (${o!.names}) SELECT * FROM ${o!.values}
    ), counted AS (
      INSERT INTO scan_counts (${c!.names}) SELECT * FROM ${c!.values}
      ON CONFLICT (team_id, mode, day, reason, country) DO UPDATE SET count = scan_counts.count + excluded.count
    )${signalled}
    INSERT INTO verifications (${i!.names}) SELECT * FROM ${i!.values}
    WHERE tapproof_chips_unchanged((SELECT count(*) FROM progress), ${values[at]}::integer)`;
}

// The text is the same for every batch of a variant: Kysely builds it once (src/db/precompiled.ts), a batch only fills its values.
async function writeOutcomesPrepared(db: Executor, chips: ChipAdvance[], sessions: SessionRow[], verifications: VerificationRow[]): Promise<void> {
  const signalCounts = foldSignalCounts(verifications);
  const variant: Variant = signalCounts.length === 0 ? 'plain' : 'flagged';
  const values = [
    ...columnArrays(chips.map(advanceRow), CHIP_ADVANCES),
    ...columnArrays(sessions, SESSIONS),
    ...columnArrays(foldScanCounts(verifications), SCAN_COUNTS),
    ...(variant === 'flagged' ? [...columnArrays(signalCounts, SIGNAL_COUNTS), ...columnArrays(foldFlaggedCounts(verifications), FLAGGED_COUNTS)] : []),
    ...columnArrays(verifications, variant === 'flagged' ? VERIFICATIONS : PLAIN_VERIFICATIONS),
    chips.length,
  ];
  await executeCompiledOnce(db, `scanOutcomes ${variant}`, values, (v) => outcomeStatement(v, variant).compile(db));
}

export interface VerificationFilter {
  tagId?: string;
  /** Only the scans a case holds (its rows of case_scans). */
  caseId?: string;
  /** Only these reasons (at least one); all of them when absent. */
  reasons?: readonly string[];
  /** true: only scans with a signal; false: only those without. */
  flagged?: boolean;
  /** Only scans carrying this signal (implies flagged). */
  signal?: Signal;
  /** Only scans of this country (ISO 3166-1 alpha-2, as stored). */
  country?: string;
  /** Inclusive lower and exclusive upper bound of scanned_at. */
  since?: number;
  until?: number;
  /** The keyset: rows strictly older than this (scanned_at, id). */
  before?: readonly [number, string];
  /** Rows to read (a page and one more, to tell whether another page follows). */
  limit: number;
}

/**
 * A world's verifications, newest first, keyset-paged on (scanned_at, id), never an OFFSET; each
 * walk follows an index in its own order (docs/read-api.md): a tag's verifications_tag_time with
 * the rest of the filter read from its rows, the flagged ones verifications_flagged (migration 0021)
 * with the reasons and the country read from its rows, one country's verifications_country_time
 * (migration 0030) with the reasons read from its rows, a world's verifications_world_time, one
 * reason's verifications_reason_time (migration 0020), and several reasons (genuine=false) a merge
 * of their ranges, each read only as far as the page needs; a case's scans its range of case_scans.
 */
export const worldVerifications = (db: Executor, world: World, filter: VerificationFilter) => {
  const { tagId, reasons } = filter;
  const postgres = onPostgres(db);
  const flaggedWalk = filter.signal !== undefined || filter.flagged === true;
  if (filter.caseId !== undefined) return caseWalk(db, world, { ...filter, caseId: filter.caseId }, postgres).limit(filter.limit);
  // SQLite has no statistics to weigh a tag's index against a world's: on a tag's walk the world and
  // the reasons are `+column`, read from the row, never through an index (sqlite.org/optoverview.html,
  // "Disqualifying WHERE clause terms using unary-+"). PostgreSQL weighs them with its statistics.
  if (tagId !== undefined) return walk(db, world, filter, postgres ? NONE : ROW_ONLY).limit(filter.limit);
  if (flaggedWalk) return walk(db, world, filter, postgres ? NONE : FLAGGED_FROM_ROW).limit(filter.limit);
  // A country's range is in time order whatever the reasons: no merge, the reasons are read from its rows.
  if (filter.country !== undefined) return walk(db, world, filter, postgres ? NONE : COUNTRY_FROM_ROW).limit(filter.limit);
  if (reasons === undefined || reasons.length < 2) return walk(db, world, filter, NONE).limit(filter.limit);
  // SQLite merges the reasons' walks lazily, as the page asks; PostgreSQL costs each walk of a merge as
  // if read whole and would sort a frequent reason's whole range instead, unless each has the page's limit.
  const [first, ...others] = reasons.map((reason) => (eb: Source) => {
    const one = walk(eb, world, { ...filter, reasons: [reason] }, NONE);
    return (postgres ? one.limit(filter.limit) : one).as('v');
  });
  return others
    .reduce((merged, other) => merged.unionAll((eb) => eb.selectFrom(other).selectAll()), db.selectFrom(first!).selectAll())
    .orderBy('scanned_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit);
};

type Source = Pick<ExpressionBuilder<Database, never>, 'selectFrom'>;
type Filtered = 'team_id' | 'mode' | 'reason' | 'signals' | 'country';
/** The columns of a walk read from its rows rather than through an index (SQLite's unary +; PostgreSQL has no such operator on text). */
const NONE: ReadonlySet<Filtered> = new Set();
const ROW_ONLY: ReadonlySet<Filtered> = new Set(['team_id', 'mode', 'reason', 'signals', 'country']);
const FLAGGED_FROM_ROW: ReadonlySet<Filtered> = new Set(['reason', 'country']);
const COUNTRY_FROM_ROW: ReadonlySet<Filtered> = new Set(['reason']);

/** The filter's conditions on a scan's reason, signals and country, each column as `column` names it. */
function scanConditions(filter: VerificationFilter, column: (name: Filtered) => Expression<string>, signals: Expression<string>): RawBuilder<SqlBool>[] {
  const out: RawBuilder<SqlBool>[] = [];
  if (filter.reasons?.length === 1) out.push(sql`${column('reason')} = ${filter.reasons[0]!}`);
  else if (filter.reasons !== undefined) out.push(sql`${column('reason')} in (${sql.join(filter.reasons)})`);
  if (filter.signal !== undefined || filter.flagged === true) out.push(sql`${column('signals')} is not null`);
  else if (filter.flagged === false) out.push(sql`${column('signals')} is null`);
  if (filter.signal !== undefined) out.push(sql`',' || ${signals} || ',' like ${signalPattern(filter.signal)}`);
  if (filter.country !== undefined) out.push(sql`${column('country')} = ${filter.country}`);
  return out;
}

/** One walk in its index's order, without its limit; the columns in `fromRow` are read from the rows. */
function walk(source: Source, world: World, filter: VerificationFilter, fromRow: ReadonlySet<Filtered>) {
  const column = (name: Filtered) => (fromRow.has(name) ? sql<string>`+${sql.ref(name)}` : sql.ref<string>(name));
  let query = source.selectFrom('verifications').selectAll();
  if (filter.tagId !== undefined) query = query.where('tag_id', '=', filter.tagId);
  query = query.where(column('team_id'), '=', world.teamId).where(column('mode'), '=', world.mode);
  for (const condition of scanConditions(filter, column, sql.ref('signals'))) query = query.where(condition);
  if (filter.since !== undefined) query = query.where('scanned_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('scanned_at', '<', filter.until);
  if (filter.before !== undefined) query = query.where(sql<boolean>`(scanned_at, id) < (${filter.before[0]}, ${filter.before[1]})`);
  return query.orderBy('scanned_at', 'desc').orderBy('id', 'desc');
}

/**
 * A case's scans in the order of case_scans' primary key (case_id, scanned_at, verification_id), each
 * joined to its verification by id: the page reads its own rows of the case and no more, however many
 * scans the case holds. The world and the other filters are read from the joined rows (on SQLite
 * `+column`, so that no index of verifications is offered to drive the join instead): a case of another
 * world, or a scan pruned by retention, lists nothing.
 */
function caseWalk(db: Executor, world: World, filter: VerificationFilter & { caseId: string }, postgres: boolean) {
  const column = (name: Filtered | 'tag_id') => (postgres ? sql.ref<string>(`v.${name}`) : sql<string>`+${sql.ref(`v.${name}`)}`);
  let query = db
    .selectFrom('case_scans as c')
    // case_scans' ids are text collate "C" (migration 0034), verifications.id the database's default: a
    // join of the two has no one collation, and PostgreSQL then looks the scans up by neither key, hashing the
    // world's verifications instead. In the primary key's collation, each is found by its id.
    .innerJoin('verifications as v', (join) =>
      join.on('v.id', '=', postgres ? sql<string>`${sql.ref('c.verification_id')} collate "default"` : sql.ref<string>('c.verification_id')),
    )
    .selectAll('v')
    .where('c.case_id', '=', filter.caseId)
    .where(column('team_id'), '=', world.teamId)
    .where(column('mode'), '=', world.mode);
  if (filter.tagId !== undefined) query = query.where(column('tag_id'), '=', filter.tagId);
  for (const condition of scanConditions(filter, column, sql.ref('v.signals'))) query = query.where(condition);
  if (filter.since !== undefined) query = query.where('c.scanned_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('c.scanned_at', '<', filter.until);
  if (filter.before !== undefined) query = query.where(sql<boolean>`(c.scanned_at, c.verification_id) < (${filter.before[0]}, ${filter.before[1]})`);
  return query.orderBy('c.scanned_at', 'desc').orderBy('c.verification_id', 'desc');
}

export async function listVerifications(db: Executor, world: World, filter: VerificationFilter): Promise<VerificationRow[]> {
  if (filter.reasons?.length === 0) return [];
  return worldVerifications(db, world, filter).execute();
}
