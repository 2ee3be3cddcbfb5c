// The SQL of master key generations: the generations table, and the columns of other features' tables
// that hold values sealed under a mode's master, which status, retire and rewrap read and rewrite.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import type { MasterGenerationsTable, Mode } from '../db/schema.js';

export interface SealedColumn {
  column: string;
  purpose: string;
  /** The text before `v1.` in the stored value. */
  prefix: string;
}

export interface SealedTable {
  table: 'chips' | 'webhooks' | 'writer_sessions';
  /** The primary key, the order a rewrap walks the table in. */
  id: string;
  columns: SealedColumn[];
}

const plain = (column: string, purpose: string): SealedColumn => ({ column, purpose, prefix: '' });

export const SEALED_TABLES: SealedTable[] = [
  {
    table: 'chips',
    id: 'tag_id',
    columns: [plain('sdm_file_read_key_sealed', 'chip-keys'), plain('sdm_meta_read_key_sealed', 'chip-keys'), plain('app_master_key_sealed', 'chip-keys')],
  },
  { table: 'webhooks', id: 'id', columns: [plain('secret_sealed', 'webhook-secret'), plain('previous_secret_sealed', 'webhook-secret')] },
  { table: 'writer_sessions', id: 'id', columns: [{ column: 'state', purpose: 'writer-session', prefix: '{"sealed":"' }] },
];

/** How a value sealed under key id `kid` starts in `column`. */
export const sealedLead = (column: SealedColumn, kid: string): string => `${column.prefix}v1.${kid}.`;

/** The length of a sealed value's lead (key ids are 8 characters). */
const leadLength = (column: SealedColumn): number => column.prefix.length + 12;

/** `column` holds a sealed value (SQL). */
export const isSealed = (column: SealedColumn): RawBuilder<boolean> =>
  sql<boolean>`substr(${sql.ref(column.column)}, 1, ${sql.lit(column.prefix.length + 3)}) = ${column.prefix + 'v1.'}`;

/** `column` holds a value sealed under another key id than `kid` (SQL). */
export const sealedUnderOther = (column: SealedColumn, kid: string): RawBuilder<boolean> =>
  sql<boolean>`(${isSealed(column)} and substr(${sql.ref(column.column)}, 1, ${sql.lit(leadLength(column))}) <> ${sealedLead(column, kid)})`;

/** A mode's generations as stored, oldest first. */
export function listGenerationRows(db: Executor, mode: Mode) {
  return db
    .selectFrom('master_generations')
    .select(['generation', 'check_value', 'key_ids', 'retired_at'])
    .where('mode', '=', mode)
    .orderBy('generation')
    .execute();
}

/** Inserts a generation unless its number is taken; true when this call inserted it. */
export async function insertGeneration(db: Executor, row: MasterGenerationsTable): Promise<boolean> {
  const inserted = await db
    .insertInto('master_generations')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Sets a generation's key ids where none are recorded yet. */
export async function setKeyIds(db: Executor, mode: Mode, generation: number, keyIds: string): Promise<void> {
  await db
    .updateTable('master_generations')
    .set({ key_ids: keyIds })
    .where('mode', '=', mode)
    .where('generation', '=', generation)
    .where('key_ids', 'is', null)
    .execute();
}

export async function setRetired(db: Executor, mode: Mode, generation: number, at: number): Promise<void> {
  await db.updateTable('master_generations').set({ retired_at: at }).where('mode', '=', mode).where('generation', '=', generation).execute();
}

/** A mode's chips per generation their keys come from. */
export function chipsPerGeneration(db: Executor, mode: Mode) {
  return db
    .selectFrom('chips')
    .select(['master_generation', (eb) => eb.fn.countAll<number>().as('n')])
    .where('mode', '=', mode)
    .groupBy('master_generation')
    .execute();
}

/** How many values of `column` are sealed under each key id (by the lead they start with). */
export async function sealedPerLead(
  db: Executor,
  table: SealedTable['table'],
  column: SealedColumn,
  mode: Mode,
): Promise<{ lead: string; n: number | string }[]> {
  const { rows } = await sql<{ lead: string; n: number | string }>`select substr(${sql.ref(column.column)}, 1, ${sql.lit(leadLength(column))}) as lead,
      count(*) as n from ${sql.table(table)} where mode = ${mode} and ${isSealed(column)} group by 1`.execute(db);
  return rows;
}

/** One sealed value of `column` in `mode`, or undefined when none is sealed. */
export async function anySealedValue(db: Executor, table: SealedTable['table'], column: SealedColumn, mode: Mode): Promise<string | undefined> {
  const row = await db
    .selectFrom(table)
    .select(`${column.column} as sealed` as never)
    .where('mode', '=', mode)
    .where(isSealed(column))
    .limit(1)
    .executeTakeFirst();
  return (row as { sealed?: string } | undefined)?.sealed;
}

export type SealedRow = Record<string, string | null>;

/** A writer session is live until it ended or its deadline passed (docs/writer.md). */
const notLive = (table: SealedTable, now: number) =>
  table.table === 'writer_sessions' ? sql<boolean>`(result is not null or expires_at <= ${now})` : sql<boolean>`1 = 1`;

/**
 * Up to `batch` rows of `table` after `after` (key order) holding a value sealed under another key id
 * than the purpose's in `kids`, and not a live writer session: what a rewrap re-seals next.
 */
export async function staleSealedRows(
  db: Executor,
  table: SealedTable,
  mode: Mode,
  kids: Record<string, string>,
  now: number,
  after: string,
  batch: number,
): Promise<SealedRow[]> {
  const stale = sql.join(
    table.columns.map((c) => sealedUnderOther(c, kids[c.purpose]!)),
    sql` or `,
  );
  const columns = sql.join(table.columns.map((c) => sql.ref(c.column)));
  const { rows } = await sql<SealedRow>`select ${sql.ref(table.id)} as id, ${columns} from ${sql.table(table.table)}
      where mode = ${mode} and (${stale}) and ${notLive(table, now)} and ${sql.ref(table.id)} > ${after}
      order by ${sql.ref(table.id)} limit ${sql.lit(batch)}`.execute(db);
  return rows;
}

/**
 * Writes `set` into the row read as `row`, only if its sealed columns still hold what was read (a
 * concurrent change wins); an imported chip's keys then come from `generation`. Returns the rows changed.
 */
export async function resealIfUnchanged(db: Executor, table: SealedTable, row: SealedRow, set: Record<string, string>, generation: number): Promise<number> {
  const assignments = Object.entries(set).map(([name, value]) => sql`${sql.ref(name)} = ${value}`);
  if (table.table === 'chips') assignments.push(sql`master_generation = ${generation}`);
  const unchanged = table.columns.map((c) => (row[c.column] === null ? sql`${sql.ref(c.column)} is null` : sql`${sql.ref(c.column)} = ${row[c.column]}`));
  const updated = await sql`update ${sql.table(table.table)} set ${sql.join(assignments)}
      where ${sql.ref(table.id)} = ${row.id} and ${sql.join(unchanged, sql` and `)}`.execute(db);
  return Number(updated.numAffectedRows ?? 0);
}

/** Live writer sessions of `mode` whose state is sealed under another key id than `kid`. */
export async function liveSessionsSealedUnderOther(db: Executor, mode: Mode, column: SealedColumn, kid: string, now: number): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from writer_sessions where mode = ${mode}
      and ${sealedUnderOther(column, kid)} and result is null and expires_at > ${now}`.execute(db);
  return Number(rows[0]!.n);
}
