import type { Executor } from '../db/database.js';
import type { ApiKeysTable, Mode } from '../db/schema.js';

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

/** Revokes once; a second revoke keeps the first time. Returns whether the key exists. */
export async function revokeKey(db: Executor, id: string, at: number): Promise<boolean> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  return (await findKey(db, id)) !== undefined;
}

export async function findKeyInWorld(db: Executor, id: string, teamId: string, mode: Mode): Promise<KeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).where('team_id', '=', teamId).where('mode', '=', mode).executeTakeFirst();
}
