// All SQL on writer_sessions. A write is read with what the step machine needs of its tag in one
// statement, and every change to a running write is conditional on the round trip it answers, so
// two requests answering the same round trip are serialized: one changes the row, the other none.
import type { Executor } from '../db/database.js';
import type { WriterSessionsTable } from '../db/schema.js';
import type { World } from '../world.js';
import { inWorld } from '../db/in-world.js';

export type WriteRow = WriterSessionsTable;

/** A write of the world with its tag's protocol and url (null when the tag was deleted meanwhile). */
export type WriteWithTag = WriteRow & { tag: { protocol: string; url: string } | null };

function worldWrite(db: Executor, world: World, id: string) {
  return db.selectFrom('writer_sessions').selectAll('writer_sessions').where('writer_sessions.id', '=', id).$call(inWorld(world, 'writer_sessions'));
}

export async function findWrite(db: Executor, world: World, id: string): Promise<WriteRow | undefined> {
  return worldWrite(db, world, id).executeTakeFirst();
}

/** A tag's writes, newest first. */
export async function listTagWrites(db: Executor, world: World, tagId: string, limit: number): Promise<WriteRow[]> {
  return db
    .selectFrom('writer_sessions')
    .selectAll()
    .where('tag_id', '=', tagId)
    .$call(inWorld(world))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function findWriteWithTag(db: Executor, world: World, id: string): Promise<WriteWithTag | undefined> {
  const row = await worldWrite(db, world, id)
    .leftJoin('tags', (join) =>
      join
        .onRef('tags.id', '=', 'writer_sessions.tag_id')
        .onRef('tags.team_id', '=', 'writer_sessions.team_id')
        .onRef('tags.mode', '=', 'writer_sessions.mode'),
    )
    .select(['tags.protocol as tag_protocol', 'tags.url as tag_url'])
    .executeTakeFirst();
  if (!row) return undefined;
  const { tag_protocol, tag_url, ...write } = row;
  return { ...write, tag: tag_protocol !== null && tag_url !== null ? { protocol: tag_protocol, url: tag_url } : null };
}

/** The start's one read: the world's tag, with its running write when that write is past `at` (at most one runs). */
export async function findTagWithStaleWrite(db: Executor, world: World, tagId: string, at: number) {
  return db
    .selectFrom('tags')
    .leftJoin('writer_sessions', (join) =>
      join.onRef('writer_sessions.tag_id', '=', 'tags.id').on('writer_sessions.result', 'is', null).on('writer_sessions.expires_at', '<=', at),
    )
    .select([
      'tags.id',
      'tags.protocol',
      'tags.url',
      'tags.status',
      'writer_sessions.id as stale_id',
      'writer_sessions.round_trips as stale_round_trips',
      'writer_sessions.operation as stale_operation',
    ])
    .where('tags.id', '=', tagId)
    .$call(inWorld(world, 'tags'))
    .executeTakeFirst();
}

export async function insertWrite(db: Executor, row: WriteRow): Promise<void> {
  await db.insertInto('writer_sessions').values(row).execute();
}

/**
 * Applies `changes` to a write still running at `roundTrips` (claiming that round trip when they
 * move `round_trips` on). False when another request got there first or the write ended: nothing changed.
 */
export async function updateRunningWrite(
  db: Executor,
  id: string,
  roundTrips: number,
  changes: Partial<Omit<WriteRow, 'id' | 'team_id' | 'mode' | 'tag_id' | 'created_at'>>,
): Promise<boolean> {
  const moved = await db
    .updateTable('writer_sessions')
    .set(changes)
    .where('id', '=', id)
    .where('round_trips', '=', roundTrips)
    .where('result', 'is', null)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** Rewrites the end of a write this transaction has just claimed (a success that turned into a failure). */
export async function setWriteEnd(db: Executor, id: string, changes: Pick<WriteRow, 'step' | 'result' | 'reason' | 'updated_at'>): Promise<void> {
  await db.updateTable('writer_sessions').set(changes).where('id', '=', id).execute();
}
