// All SQL on chips (bound to configured tags) and the sandbox emulator's chip state.
import type { Executor } from '../db/database.js';
import type { ChipsTable, EmulatedChipsTable, TagsTable } from '../db/schema.js';
import type { World } from '../tags/repository.js';

export type ChipRow = ChipsTable;
export type EmulatedChipRow = EmulatedChipsTable;

export async function insertChips(db: Executor, rows: ChipRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) await db.insertInto('chips').values(rows.slice(i, i + 200)).execute();
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
    .select(['tags.id', 'tags.url', 'tags.status', 'tags.session_duration', 'tags.protocol'])
    .select([
      'chips.tag_id as c_tag_id',
      'chips.team_id as c_team_id',
      'chips.mode as c_mode',
      'chips.protocol as c_protocol',
      'chips.uid as c_uid',
      'chips.crypto as c_crypto',
      'chips.mirroring as c_mirroring',
      'chips.key_source as c_key_source',
      'chips.key_version as c_key_version',
      'chips.sdm_meta_read_key_sealed as c_meta',
      'chips.sdm_file_read_key_sealed as c_file',
      'chips.params as c_params',
      'chips.mac_input_from as c_mac_input_from',
      'chips.write_generation as c_write_generation',
      'chips.last_counter as c_last_counter',
      'chips.session_id as c_session_id',
      'chips.session_expires_at as c_session_expires_at',
      'chips.created_at as c_created_at',
    ])
    .where('tags.team_id', '=', world.teamId)
    .where('tags.mode', '=', world.mode)
    .where('tags.url', 'in', urls)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    url: r.url,
    status: r.status,
    session_duration: r.session_duration,
    protocol: r.protocol,
    chip:
      r.c_tag_id === null
        ? null
        : {
            tag_id: r.c_tag_id,
            team_id: r.c_team_id!,
            mode: r.c_mode!,
            protocol: r.c_protocol!,
            uid: r.c_uid!,
            crypto: r.c_crypto!,
            mirroring: r.c_mirroring!,
            key_source: r.c_key_source!,
            key_version: r.c_key_version!,
            sdm_meta_read_key_sealed: r.c_meta,
            sdm_file_read_key_sealed: r.c_file,
            params: r.c_params!,
            mac_input_from: r.c_mac_input_from,
            write_generation: r.c_write_generation!,
            last_counter: r.c_last_counter,
            session_id: r.c_session_id,
            session_expires_at: r.c_session_expires_at,
            created_at: r.c_created_at!,
          },
  }));
}

export async function findChip(db: Executor, tagId: string): Promise<ChipRow | undefined> {
  return db.selectFrom('chips').selectAll().where('tag_id', '=', tagId).executeTakeFirst();
}

/**
 * Accepts `counter` for the tag's write generation if it is above the last
 * accepted one: the atomic compare-and-set of replay detection. Returns the
 * chip's session pointer when this call won, undefined when it lost.
 */
export async function advanceCounter(
  db: Executor,
  tagId: string,
  generation: number,
  counter: number,
): Promise<{ session_id: string | null; session_expires_at: number | null } | undefined> {
  return db
    .updateTable('chips')
    .set({ last_counter: counter })
    .where('tag_id', '=', tagId)
    .where('write_generation', '=', generation)
    .where((eb) => eb.or([eb('last_counter', 'is', null), eb('last_counter', '<', counter)]))
    .returning(['session_id', 'session_expires_at'])
    .executeTakeFirst();
}

export async function setChipSession(db: Executor, tagId: string, sessionId: string | null, expiresAt: number | null): Promise<void> {
  await db.updateTable('chips').set({ session_id: sessionId, session_expires_at: expiresAt }).where('tag_id', '=', tagId).execute();
}

/** The emulated chip of a sandbox tag, with its tag. */
export async function findEmulatedChip(db: Executor, tagId: string) {
  return db
    .selectFrom('emulated_chips')
    .innerJoin('tags', 'tags.id', 'emulated_chips.tag_id')
    .innerJoin('chips', 'chips.tag_id', 'emulated_chips.tag_id')
    .selectAll('emulated_chips')
    .select(['tags.url', 'tags.team_id', 'tags.mode', 'tags.protocol', 'chips.uid', 'chips.crypto', 'chips.key_version', 'chips.params', 'chips.mirroring', 'chips.mac_input_from'])
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
