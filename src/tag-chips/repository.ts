// All SQL on chips (bound to configured tags) and the sandbox emulator's chip state.
import { sql } from 'kysely';
import { onPostgres, type Executor } from '../db/database.js';
import { executeShaped } from '../db/precompiled.js';
import type { ChipsTable, EmulatedChipsTable, TagsTable } from '../db/schema.js';
import type { World } from '../world.js';
import { inChunks } from '../db/chunked.js';
import type { ChipLayout } from '../chips/url-layout.js';
import { inWorld } from '../db/in-world.js';

export type ChipRow = ChipsTable;
/** What the group commit reads of a chip under its lock, and writes back (the counter and session pointer). */
/** What a genuine scan advances: the counter, the session pointer and what the counterfeit signals remember. */
const PROGRESS = ['tag_id', 'last_counter', 'session_id', 'session_expires_at', 'last_country', 'last_genuine_at', 'tamper_opened'] as const;
export type ChipProgress = Pick<ChipRow, (typeof PROGRESS)[number]>;
export type LockedChip = ChipProgress & Pick<ChipRow, 'write_generation'> & { session_duration: number };
export type EmulatedChipRow = EmulatedChipsTable;

/** What differs between the ways a chip gets bound to its tag (import, the writer, the emulator). */
export interface NewChip {
  uid: string;
  crypto: ChipRow['crypto'];
  layout: ChipLayout;
  keySource: ChipRow['key_source'];
  keyVersion: number;
  /** Imported chips only: their SDM keys and, when the import carried it, application key 0, sealed under the mode's master key. */
  sealedKeys?: { meta: string | null; file: string; app?: string | null };
  /** Imported chips may come with the last counter already read. */
  lastCounter?: number | null;
  /**
   * The master key generation the keys come from (derived) or are sealed under (imported); absent:
   * the mode's current generation when the row is inserted.
   */
  masterGeneration?: number;
}

/** master_generation of a row built without one: insertChips puts the mode's current generation there. */
const CURRENT_AT_INSERT = 0;

/** The row of a chip bound to `tag` when it becomes configured: first write generation, no session yet. */
export function chipRow(world: World, tag: { id: string; protocol: string }, chip: NewChip, at: number): ChipRow {
  return {
    tag_id: tag.id,
    team_id: world.teamId,
    mode: world.mode,
    protocol: tag.protocol,
    uid: chip.uid,
    crypto: chip.crypto,
    mirroring: chip.layout.mirroring,
    key_source: chip.keySource,
    key_version: chip.keyVersion,
    sdm_meta_read_key_sealed: chip.sealedKeys?.meta ?? null,
    sdm_file_read_key_sealed: chip.sealedKeys?.file ?? null,
    params: JSON.stringify(chip.layout.params),
    mac_input_from: chip.layout.macInputFrom,
    write_generation: 1,
    master_generation: chip.masterGeneration ?? CURRENT_AT_INSERT,
    last_counter: chip.lastCounter ?? null,
    session_id: null,
    session_expires_at: null,
    last_country: null,
    last_genuine_at: null,
    tamper_opened: 0,
    created_at: at,
    pending_key_version: null,
    pending_master_generation: null,
    app_master_key_sealed: chip.sealedKeys?.app ?? null,
  };
}

export async function insertChips(db: Executor, rows: ChipRow[]): Promise<void> {
  const current = (mode: ChipRow['mode']) =>
    sql<number>`(select coalesce(max(generation), 1) from master_generations where mode = ${mode} and retired_at is null)`;
  const values = rows.map((row) => (row.master_generation === CURRENT_AT_INSERT ? { ...row, master_generation: current(row.mode) } : row));
  await inChunks(values, (part) => db.insertInto('chips').values(part).execute());
}

/**
 * A rekey records the keys it moves the chip to before its first ChangeKey; again on a rerun (same
 * values). False when another rekey's keys are recorded: those must be finished first.
 */
export async function recordPendingKeys(db: Executor, tagId: string, version: number, generation: number | null): Promise<boolean> {
  const r = await db
    .updateTable('chips')
    .set({ pending_key_version: version, pending_master_generation: generation })
    .where('tag_id', '=', tagId)
    .where((eb) => eb.or([eb('pending_key_version', 'is', null), eb('pending_key_version', '=', version)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * A rekey's end: the pending keys become the chip's (derived from then on; an imported chip's sealed keys
 * are dropped). Its counter, session and write generation stay: the chip is the same, its counter went on.
 * False when the chip has no such pending keys.
 */
export async function commitPendingKeys(db: Executor, tagId: string, version: number, generation: number | null): Promise<boolean> {
  const r = await db
    .updateTable('chips')
    .set({
      key_version: version,
      key_source: 'derived',
      sdm_meta_read_key_sealed: null,
      sdm_file_read_key_sealed: null,
      app_master_key_sealed: null,
      pending_key_version: null,
      pending_master_generation: null,
      ...(generation === null ? {} : { master_generation: generation }),
    })
    .where('tag_id', '=', tagId)
    .where('pending_key_version', '=', version)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * The tag other than `exceptTag` whose chip has `uid`, in any team of the world's mode (one chip is one tag,
 * whoever wrote it), or null.
 */
export async function chipOwner(db: Executor, world: World, uid: string, exceptTag: string): Promise<{ tagId: string; teamId: string } | null> {
  const row = await db
    .selectFrom('chips')
    .select(['tag_id', 'team_id'])
    .where('mode', '=', world.mode)
    .where('uid', '=', uid)
    .where('tag_id', '!=', exceptTag)
    .executeTakeFirst();
  return row ? { tagId: row.tag_id, teamId: row.team_id } : null;
}

export async function insertEmulatedChip(db: Executor, row: EmulatedChipRow): Promise<void> {
  await db.insertInto('emulated_chips').values(row).execute();
}

export type TagWithChip = Pick<TagsTable, 'id' | 'url' | 'status' | 'session_duration' | 'protocol'> & { chip: ChipRow | null };

/** The world's tags whose url is one of `urls`, each with its chip when it has one. */
export async function findTagsByUrls(db: Executor, world: World, urls: string[]): Promise<TagWithChip[]> {
  if (urls.length === 0) return [];
  const rows = await db
    .selectFrom('tags')
    .leftJoin('chips', 'chips.tag_id', 'tags.id')
    .selectAll('chips')
    .select(['tags.id as tag_row_id', 'tags.url', 'tags.status', 'tags.session_duration', 'tags.protocol as tag_protocol'])
    .$call(inWorld(world, 'tags'))
    .where('tags.url', 'in', urls)
    .execute();
  return rows.map(({ tag_row_id, url, status, session_duration, tag_protocol, ...chip }) => ({
    id: tag_row_id,
    url,
    status,
    session_duration,
    protocol: tag_protocol,
    chip: chip.tag_id === null ? null : (chip as ChipRow),
  }));
}

/**
 * SQLite: the chips of `tagIds` with their tag's current session_duration, read inside the
 * group commit's transaction, which (BEGIN IMMEDIATE) already holds the database's write lock.
 * PostgreSQL locks them FOR UPDATE with a statement of its own (lockPrepared, below).
 * Replay detection reads and advances counters under this lock.
 */
export async function lockChips(db: Executor, tagIds: string[]): Promise<LockedChip[]> {
  const build = (d: Executor, ids: { id: string }[]) =>
    d
      .selectFrom('chips')
      .select([...PROGRESS, 'write_generation'])
      // The tag's current session_duration (PATCH may change it).
      .select((eb) =>
        eb.selectFrom('tags').select('tags.session_duration').whereRef('tags.id', '=', 'chips.tag_id').$asScalar().$notNull().as('session_duration'),
      )
      .where(
        'tag_id',
        'in',
        ids.map((i) => i.id),
      )
      .orderBy('tag_id');
  return executeShaped(
    db,
    'lockChips',
    tagIds.map((id) => ({ id })),
    build,
  );
}

/**
 * SQLite: writes back the counters and session pointers of locked chips, one statement for many
 * (UPDATE … FROM VALUES: only the progress columns, where an upsert would rebuild every column of the row).
 * PostgreSQL does it in the group commit's own statement (writeOutcomes, src/verifications/repository.ts).
 */
export async function saveChipProgress(db: Executor, rows: ChipProgress[]): Promise<void> {
  const progress = rows.map((row) => Object.fromEntries(PROGRESS.map((name) => [name, row[name]])) as ChipProgress);
  await inChunks(progress, (part) =>
    executeShaped(db, 'saveChipProgress', part, (d, shaped) => {
      const values = sql.join(shaped.map((p) => sql`(${sql.join(PROGRESS.map((name) => p[name]))})`));
      const update = sql`update chips set last_counter = p.column2, session_id = p.column3, session_expires_at = p.column4,
          last_country = p.column5, last_genuine_at = p.column6, tamper_opened = p.column7
        from (values ${values}) as p where chips.tag_id = p.column1`;
      return { compile: () => update.compile(d) };
    }),
  );
}

/** The emulated chip of a sandbox tag, with its tag. */
export async function findEmulatedChip(db: Executor, tagId: string) {
  return db
    .selectFrom('emulated_chips')
    .innerJoin('tags', 'tags.id', 'emulated_chips.tag_id')
    .innerJoin('chips', 'chips.tag_id', 'emulated_chips.tag_id')
    .selectAll('emulated_chips')
    .select([
      'tags.url',
      'tags.team_id',
      'tags.mode',
      'tags.protocol',
      'chips.uid',
      'chips.crypto',
      'chips.master_generation',
      'chips.key_version',
      'chips.params',
      'chips.mirroring',
      'chips.mac_input_from',
    ])
    .where('emulated_chips.tag_id', '=', tagId)
    .executeTakeFirst();
}

/** One tap: the counter goes up by one, atomically across processes. Returns the new value. */
export async function incrementEmulatedCounter(db: Executor, tagId: string): Promise<number | undefined> {
  const row = await db
    .updateTable('emulated_chips')
    .set((eb) => ({ counter: eb('counter', '+', 1) }))
    .where('tag_id', '=', tagId)
    .returning('counter')
    .executeTakeFirst();
  return row?.counter;
}

export async function setEmulatedTamper(db: Executor, tagId: string, permanent: string, current: string): Promise<void> {
  await db.updateTable('emulated_chips').set({ tamper_permanent: permanent, tamper_current: current }).where('tag_id', '=', tagId).execute();
}

/** The chips of a batch's tags, locked until its transaction ends, with their tag's current session_duration. */
export function lockForBatch(db: Executor, tagIds: string[]): Promise<LockedChip[]> {
  return onPostgres(db) ? lockPrepared(db, tagIds) : lockChips(db, tagIds);
}

/** FOR UPDATE in tag order, so that two batches never wait on each other in a cycle. */
async function lockPrepared(db: Executor, tagIds: string[]): Promise<LockedChip[]> {
  // The tag's current session_duration (PATCH may change it) in a subquery, so that only chips are locked.
  // Only what the batch decides on, by name: not chips.* (the sealed keys are the bulk of a row), and a prepared
  // statement whose result columns change (a later migration adding one while older servers run) would fail
  // with "cached plan must not change result type".
  const { rows } = await sql<LockedChip>`/* prepared: tapproof_lock_chips */
    SELECT tag_id, write_generation, last_counter, session_id, session_expires_at, last_country, last_genuine_at, tamper_opened,
           (SELECT tags.session_duration FROM tags WHERE tags.id = chips.tag_id) AS session_duration
    FROM chips WHERE chips.tag_id = ANY(${tagIds}::text[]) ORDER BY chips.tag_id FOR UPDATE`.execute(db);
  return rows;
}

/** The chip of a tag (written, imported or emulated) with the tag's url, in the tag's world. */
export async function findTagChip(db: Executor, world: World, tagId: string): Promise<{ url: string; chip: ChipRow } | undefined> {
  const row = await db
    .selectFrom('chips')
    .innerJoin('tags', 'tags.id', 'chips.tag_id')
    .selectAll('chips')
    .select('tags.url')
    .where('chips.tag_id', '=', tagId)
    .$call(inWorld(world, 'tags'))
    .executeTakeFirst();
  if (!row) return undefined;
  const { url, ...chip } = row;
  return { url, chip: chip as ChipRow };
}
