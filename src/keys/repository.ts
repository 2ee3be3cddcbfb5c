import type { FeedAddress } from '../db/change-feed.js';
import type { Db, Executor } from '../db/database.js';
import type { ApiKeysTable, Mode } from '../db/schema.js';
import { inWorld } from '../db/in-world.js';

/** PostgreSQL channel on which a revocation reaches every process's key cache. */
export const KEYS_CHANNEL = 'tapproof_keys';

export type KeyRow = ApiKeysTable;

export async function insertKey(db: Executor, row: KeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findKeyByHash(db: Executor, keyHash: string): Promise<KeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function findKey(db: Executor, id: string): Promise<KeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Revokes once; a second revoke keeps the first time. Returns the key, if it exists. */
export async function revokeKey(db: Executor, id: string, at: number): Promise<KeyRow | undefined> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  return findKey(db, id);
}

/**
 * Marks a live key replaced by `replacement`, ending it at `endsAt` (or at its own expiry, if sooner).
 * Once: a key already replaced, revoked or expired at `now` is left alone. Returns whether it was live.
 */
export async function replaceKey(db: Executor, id: string, replacement: string, endsAt: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set((eb) => ({
      replaced_by: replacement,
      expires_at: eb
        .case()
        .when('expires_at', 'is', null)
        .then(eb.val(endsAt))
        .when('expires_at', '>', endsAt)
        .then(eb.val(endsAt))
        .else(eb.ref('expires_at'))
        .end(),
    }))
    .where('id', '=', id)
    .where('replaced_by', 'is', null)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Where revokes and rolls reach every process's principal cache (src/db/change-feed.ts). */
export const keysFeed = (db: Db): FeedAddress => ({ channel: KEYS_CHANNEL, file: db.revocationsFile });

export async function findKeyInWorld(db: Executor, id: string, teamId: string, mode: Mode): Promise<KeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).$call(inWorld({ teamId, mode })).executeTakeFirst();
}

/** A team's keys of one mode (or both), oldest first; never the hash. */
export async function listKeys(db: Executor, teamId: string, mode?: Mode): Promise<Omit<KeyRow, 'key_hash'>[]> {
  let query = db
    .selectFrom('api_keys')
    .select(['id', 'team_id', 'mode', 'role', 'name', 'created_at', 'expires_at', 'revoked_at', 'replaced_by', 'last_used_at'])
    .where('team_id', '=', teamId);
  if (mode !== undefined) query = query.where('mode', '=', mode);
  return query.orderBy('created_at').orderBy('id').execute();
}

/** The modes of a team's live keys (neither revoked nor expired at `now`), each once. */
export async function liveKeyModes(db: Executor, teamId: string, now: number): Promise<Mode[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select('mode')
    .distinct()
    .where('team_id', '=', teamId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
  return rows.map((r) => r.mode);
}

/** Moves each key's last use forward to its time (never back: writes of several processes may cross). */
export async function setKeysLastUsed(db: Executor, uses: readonly { keyId: string; at: number }[]): Promise<void> {
  for (const { keyId, at } of uses)
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', keyId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
}
