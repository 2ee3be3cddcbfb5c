// All SQL on tags and their per-world counts (and the chip lookup a listing filters by).
import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { lockedForUpdate, onPostgres, type Executor } from '../db/database.js';
import type { Database, Mode } from '../db/schema.js';
import { isId } from '../ids.js';
import type { World } from '../world.js';
import { foldComment, foldForSearch } from './search-fold.js';
import type { TagRow } from './serializer.js';
import { inChunks } from '../db/chunked.js';
import { inWorld } from '../db/in-world.js';

export const ORDER_FIELDS = ['id', 'protocol', 'inserted_at', 'updated_at', 'configured_at', 'comment', 'url', 'status'] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];
export interface OrderTerm {
  field: OrderField;
  direction: 'asc' | 'desc';
}

const NULLABLE: readonly OrderField[] = ['configured_at', 'comment'];
const UNIQUE_IN_WORLD: readonly OrderField[] = ['id', 'url'];

// Every column but comment_folded, which only the repository reads and writes.
const TAG_COLUMNS = [
  'id',
  'team_id',
  'mode',
  'protocol',
  'url',
  'comment',
  'session_duration',
  'status',
  'configured_at',
  'inserted_at',
  'updated_at',
] as const satisfies readonly (keyof TagRow)[];

export async function insertTags(db: Executor, rows: TagRow[]): Promise<void> {
  await inChunks(rows, (part) =>
    db
      .insertInto('tags')
      .values(part.map((row) => ({ ...row, comment_folded: foldComment(row.comment) })))
      .execute(),
  );
}

export async function findTag(db: Executor, world: World, id: string): Promise<TagRow | undefined> {
  return (await findTags(db, world, [id]))[0];
}

/** findTag for a transaction that will change or delete the row: on PostgreSQL it waits for, then locks, the row. */
export async function findTagForUpdate(db: Executor, world: World, id: string): Promise<TagRow | undefined> {
  return (await findTagsForUpdate(db, world, [id]))[0];
}

function worldTags(db: Executor, world: World, ids: string[]) {
  // A string that is not a tag id matches nothing (and never reaches the engine: PostgreSQL refuses NUL).
  return db
    .selectFrom('tags')
    .select(TAG_COLUMNS)
    .$call(inWorld(world))
    .where(
      'id',
      'in',
      ids.filter((id) => isId('tag', id)),
    );
}

export async function findTags(db: Executor, world: World, ids: string[]): Promise<TagRow[]> {
  if (!ids.some((id) => isId('tag', id))) return [];
  return worldTags(db, world, ids).execute();
}

/**
 * The rows a write transaction is about to change or delete, locked in id order
 * on PostgreSQL. One global order means two batches over overlapping tags wait
 * for each other instead of deadlocking, and a row deleted meanwhile by another
 * transaction is not returned, so it cannot be deleted (or counted, or
 * announced) twice.
 */
export async function findTagsForUpdate(db: Executor, world: World, ids: string[]): Promise<TagRow[]> {
  if (!ids.some((id) => isId('tag', id))) return [];
  return lockedForUpdate(db, worldTags(db, world, ids).orderBy('id')).execute();
}

/** The tags of the world holding any of `urls` (url → tag id). */
export async function findUrlOwners(db: Executor, world: World, urls: string[]): Promise<Map<string, string>> {
  if (urls.length === 0) return new Map();
  const rows = await db.selectFrom('tags').select(['id', 'url']).$call(inWorld(world)).where('url', 'in', urls).execute();
  return new Map(rows.map((r) => [r.url, r.id]));
}

export async function updateTag(
  db: Executor,
  id: string,
  changes: Partial<Pick<TagRow, 'url' | 'comment' | 'session_duration' | 'status' | 'configured_at' | 'updated_at'>>,
): Promise<void> {
  const folded = 'comment' in changes ? { comment_folded: foldComment(changes.comment ?? null) } : {};
  await db
    .updateTable('tags')
    .set({ ...changes, ...folded })
    .where('id', '=', id)
    .execute();
}

/**
 * `created` → `configured` in one statement that also reads the row back: on PostgreSQL the UPDATE
 * waits for, locks and re-checks the row, so a tag deleted or configured meanwhile is not returned.
 */
export async function configureCreatedTag(db: Executor, world: World, id: string, at: number): Promise<TagRow | undefined> {
  if (!isId('tag', id)) return undefined;
  return db
    .updateTable('tags')
    .set({ status: 'configured', configured_at: at, updated_at: at })
    .where('id', '=', id)
    .$call(inWorld(world))
    .where('status', '=', 'created')
    .returning(TAG_COLUMNS)
    .executeTakeFirst();
}

export async function deleteTags(db: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  // A tag's links to the catalog are its own, and their foreign key would refuse the tag's deletion.
  await db.deleteFrom('tag_links').where('tag_id', 'in', ids).execute();
  await db.deleteFrom('tags').where('id', 'in', ids).execute();
}

export async function adjustTagCount(db: Executor, world: World, delta: number): Promise<void> {
  if (delta === 0) return;
  await db
    .insertInto('tag_counts')
    .values({ team_id: world.teamId, mode: world.mode, tag_count: delta })
    .onConflict((oc) => oc.columns(['team_id', 'mode']).doUpdateSet({ tag_count: sql`tag_counts.tag_count + ${delta}` }))
    .execute();
}

export async function countTags(db: Executor, world: World): Promise<number> {
  const row = await db.selectFrom('tag_counts').select('tag_count').$call(inWorld(world)).executeTakeFirst();
  return row?.tag_count ?? 0;
}

/** `url=` of GET /tags: one url, or every url that starts with `prefix`. */
export type UrlMatch = { exact: string } | { prefix: string };

/** What narrows a listing; null (or absent, for callers that filter by less) is no filter. */
export interface TagFilter {
  q: string | null;
  status: TagRow['status'] | null;
  url?: UrlMatch | null;
  /** Only these tags: those whose chip has a UID (findChipTagIds), looked up before the listing. */
  among?: string[] | null;
}

export interface ListQuery extends TagFilter {
  order: OrderTerm[];
  limit: number;
  offset: number;
}

/** True when `filter` narrows nothing: the world's stored counter is its count. */
export const unfiltered = (filter: TagFilter): boolean => filter.q === null && filter.status === null && !filter.url && !filter.among;

function filtered(db: Executor, world: World, filter: TagFilter) {
  const { q, status, url, among } = filter;
  let query = db.selectFrom('tags').$call(inWorld(world));
  if (status !== null) query = query.where('status', '=', status);
  if (q !== null) query = query.where((eb) => eb.or([eb('id', '=', q), commentContains(db, foldForSearch(q))]));
  if (url && 'exact' in url) query = query.where('url', '=', url.exact);
  if (url && 'prefix' in url) {
    const { from, below } = prefixRange(url.prefix);
    query = query.where('url', '>=', from);
    if (below !== null) query = query.where('url', '<', below);
  }
  // A list of ids, not a subquery on chips: SQLite, which keeps no statistics here, would rather walk the
  // world in the page's order testing each tag against the subquery than look up the few tags it names.
  if (among) query = query.where('id', 'in', among.length > 0 ? among : ['']); // `in ()` is not SQL; '' is no tag id
  return query;
}

/** The world's tags whose chip has `uid` (upper-case hex). */
export async function findChipTagIds(db: Executor, world: World, uid: string): Promise<string[]> {
  return (await chipTags(db, world, uid).execute()).map((r) => r.tag_id);
}

/** The statement of findChipTagIds, answered from the chips index of migration 0027. */
export function chipTags(db: Executor, world: World, uid: string) {
  return db.selectFrom('chips').select('tag_id').where('mode', '=', world.mode).where('uid', '=', uid).where('team_id', '=', world.teamId);
}

/**
 * The strings that start with `prefix`, as one range of the url index (tags_team_url). Not a LIKE: its `%`
 * and `_` would need escaping, and SQLite's LIKE ignores ASCII case, so it neither matches as PostgreSQL's
 * does nor uses the BINARY index. Both engines order url by its UTF-8 bytes (BINARY on SQLite, COLLATE "C"
 * on PostgreSQL: migration 0001), which is code point order, so `[prefix, below)` holds exactly the strings
 * starting with prefix when `below` is the prefix cut after its last code point below U+10FFFF, that code
 * point raised by one (over the surrogates, which no stored url holds). Null when no such code point
 * exists: no upper bound (docs/read-api.md#finding-a-tag-by-its-url-or-chip).
 */
export function prefixRange(prefix: string): { from: string; below: string | null } {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  for (let i = points.length - 1; i >= 0; i--) {
    if (points[i]! >= 0x10ffff) continue;
    const next = points[i]! + 1 === 0xd800 ? 0xe000 : points[i]! + 1;
    return { from: prefix, below: String.fromCodePoint(...points.slice(0, i), next) };
  }
  return { from: prefix, below: null };
}

/**
 * The world's tags whose folded comment holds q, looked up in SQLite's trigram table alone; at most `max`,
 * or null when more match, when q has no trigram (under three characters) or on PostgreSQL, whose planner
 * weighs the trigram index against the others itself. SQLite keeps no statistics here: asked for a page of
 * the world in some order with the search as one more condition, it walks the world in that order and tests
 * every tag against the search (370 ms for a world of 1,000,000 tags). A few ids looked up first, then
 * listed by id (as for `uid`), cost what the page costs; a q that most comments hold is still best answered
 * by that walk, which finds a page of them at once.
 */
export async function searchTagIds(db: Executor, world: World, q: string, max: number): Promise<string[] | null> {
  const folded = foldForSearch(q);
  if (onPostgres(db) || [...folded].length < 3) return null;
  const { rows } = await sql<{ id: string }>`select t.id as id from tag_search f cross join tag_search_keys k cross join tags t
    where f.tag_search match ${phraseOf(folded)} and k.key = f.rowid and t.id = k.tag_id and t.team_id = ${world.teamId} and t.mode = ${world.mode}
    limit ${max + 1}`.execute(db);
  return rows.length > max ? null : rows.map((r) => r.id);
}

/** An FTS5 phrase: the text in double quotes, its own double quotes doubled; its trigrams in a row are "contains". */
const phraseOf = (folded: string) => `"${folded.replace(/"/g, '""')}"`;

/**
 * The folded comment holds `folded` (folded in JavaScript on both sides, src/tags/search-fold.ts; the
 * engines only compare code points), answered from the trigram index of migration 0026 where one
 * applies: on PostgreSQL LIKE, which pg_trgm's GIN index serves; on SQLite a phrase query of the FTS5
 * trigram table, which needs three characters (shorter, every comment is read).
 */
function commentContains(db: Executor, folded: string): RawBuilder<SqlBool> {
  if (onPostgres(db)) return sql<SqlBool>`comment_folded like ${'%' + folded.replace(/[\\%_]/g, '\\$&') + '%'}`;
  if ([...folded].length < 3) return sql<SqlBool>`instr(comment_folded, ${folded}) > 0`;
  return sql<SqlBool>`id in (select k.tag_id from tag_search_keys k where k.key in (select rowid from tag_search where tag_search match ${phraseOf(folded)}))`;
}

/** ORDER BY the list's terms; the id breaks every tie so a walk never shows a tag twice (a unique field already does). */
function inOrder<O>(query: SelectQueryBuilder<Database, 'tags', O>, order: OrderTerm[]): SelectQueryBuilder<Database, 'tags', O> {
  for (const term of order) {
    const nulls = NULLABLE.includes(term.field) ? (term.direction === 'asc' ? 'first' : 'last') : null;
    query = query.orderBy(term.field, (ob) => {
      const o = term.direction === 'asc' ? ob.asc() : ob.desc();
      return nulls === 'first' ? o.nullsFirst() : nulls === 'last' ? o.nullsLast() : o;
    });
  }
  if (!order.some((t) => UNIQUE_IN_WORLD.includes(t.field))) query = query.orderBy('id', order[0]?.direction ?? 'asc');
  return query;
}

/**
 * One page of a world's tags. Each single order field is served by an index
 * led by (team_id, mode); NULLs sort as the smallest value on both engines.
 * Deferred join: the page's ids come from a walk of that index alone (it ends
 * in id, so no table row is read for the OFFSET rows it skips), then only the
 * page's rows are read and put back in order (a sort of at most page_size rows).
 */
export async function listTags(db: Executor, world: World, list: ListQuery): Promise<TagRow[]> {
  return inOrder(
    db
      .selectFrom('tags')
      .select(TAG_COLUMNS)
      .where('id', 'in', pageIds(db, world, list)),
    list.order,
  ).execute();
}

/** The ids of one page, in order: the statement whose plan decides what a listing reads. */
export function pageIds(db: Executor, world: World, list: ListQuery) {
  return inOrder(filtered(db, world, list).select('id'), list.order)
    .limit(list.limit)
    .offset(list.offset);
}

/** A tag as GET /tags/export writes it: the row and its chip's UID (null while no chip is bound). */
export type TagWithChip = TagRow & { chip_uid: string | null };

/**
 * Up to `size` tags of a filtered listing after the id `after` (null: from the first), in id order, each
 * with its chip's UID: one statement. A keyset, not an OFFSET, so the export's last page costs what its
 * first does; the chip is one lookup of its primary key per tag, inside the same statement.
 */
export function tagsAfter(db: Executor, world: World, filter: TagFilter, after: string | null, size: number): Promise<TagWithChip[]> {
  let query = filtered(db, world, filter)
    .select(TAG_COLUMNS)
    .select((eb) => eb.selectFrom('chips').select('chips.uid').whereRef('chips.tag_id', '=', 'tags.id').as('chip_uid'));
  if (after !== null) query = query.where('id', '>', after);
  return query.orderBy('id').limit(size).execute();
}

export async function countFiltered(db: Executor, world: World, filter: TagFilter): Promise<number> {
  const row = await filteredCount(db, world, filter).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The count of a filtered listing (its total_count). */
export function filteredCount(db: Executor, world: World, filter: TagFilter) {
  return filtered(db, world, filter).select((eb) => eb.fn.countAll<number>().as('n'));
}

/** A world whose stored tag counter differs from its rows. */
export interface CounterDrift extends World {
  counter: number;
  rows: number;
}

/**
 * Every world whose counter differs from a count of its rows, in team id and
 * mode order. One statement, so on PostgreSQL the rows and the counters are read from
 * one snapshot (a tag write changes both in one transaction): no drift is seen
 * that a concurrent write would explain. A world without a counter row counts 0.
 */
export async function findCounterDrift(db: Executor): Promise<CounterDrift[]> {
  const { rows } = await sql<{ team_id: string; mode: Mode; counter: number | string; rows: number | string }>`
    select team_id, mode, sum(counter) as counter, sum(n) as rows from (
      select team_id, mode, count(*) as n, 0 as counter from tags group by team_id, mode
      union all
      select team_id, mode, 0 as n, tag_count as counter from tag_counts
    ) as worlds
    group by team_id, mode
    having sum(counter) <> sum(n)`.execute(db);
  // Sorted here: team_id has the engine's default collation, which orders differently on the two.
  const byWorld = (a: { team_id: string; mode: string }, b: typeof a) =>
    a.team_id < b.team_id ? -1 : a.team_id > b.team_id ? 1 : a.mode < b.mode ? -1 : a.mode > b.mode ? 1 : 0;
  return rows.sort(byWorld).map((r) => ({ teamId: r.team_id, mode: r.mode, counter: Number(r.counter), rows: Number(r.rows) }));
}

/**
 * PostgreSQL: holds off every other counter change until this transaction ends.
 * A writer that already changed a counter is waited for (its rows are then
 * counted); one that has not yet will add its delta to the repaired value.
 * SQLite's write transactions are serialized already.
 */
export async function lockTagCounters(db: Executor): Promise<void> {
  if (onPostgres(db)) await sql`lock table tag_counts in share row exclusive mode`.execute(db);
}

export async function setTagCount(db: Executor, world: World, count: number): Promise<void> {
  await db
    .insertInto('tag_counts')
    .values({ team_id: world.teamId, mode: world.mode, tag_count: count })
    .onConflict((oc) => oc.columns(['team_id', 'mode']).doUpdateSet({ tag_count: count }))
    .execute();
}
