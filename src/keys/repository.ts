import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { ApiKeysTable, Mode } from '../db/schema.js';

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

/** PostgreSQL: tells every listening server, when the transaction commits, that this key is revoked. */
export async function notifyKeyRevoked(db: Executor, keyHash: string): Promise<void> {
  await sql`select pg_notify(${KEYS_CHANNEL}, ${keyHash})`.execute(db);
}

export async function findKeyInWorld(db: Executor, id: string, teamId: string, mode: Mode): Promise<KeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).where('team_id', '=', teamId).where('mode', '=', mode).executeTakeFirst();
}
