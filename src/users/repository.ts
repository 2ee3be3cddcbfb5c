import { lockedForUpdate, type Executor } from '../db/database.js';
import type { SignInChallengesTable, UserLinksTable, UserPasskeysTable, UserSessionsTable, UsersTable } from '../db/schema.js';

export type UserRow = UsersTable;
export type ConsoleSessionRow = UserSessionsTable;
export type PasskeyRow = UserPasskeysTable;

export async function insertUser(db: Executor, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export const findUser = (db: Executor, id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

export const findUserInTeam = (db: Executor, id: string, teamId: string) =>
  db.selectFrom('users').selectAll().where('id', '=', id).where('team_id', '=', teamId).executeTakeFirst();

export const findUserByEmail = (db: Executor, email: string) => db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

export const findUserBySubject = (db: Executor, subject: string) => db.selectFrom('users').selectAll().where('oidc_subject', '=', subject).executeTakeFirst();

/** A team's users by email; `teamId` null: every team's. */
export function listUsers(db: Executor, teamId: string | null): Promise<UserRow[]> {
  let query = db.selectFrom('users').selectAll();
  if (teamId !== null) query = query.where('team_id', '=', teamId);
  return query.orderBy('team_id').orderBy('email').execute();
}

/**
 * Locks every user of a team until the transaction ends (PostgreSQL; SQLite's writers are serialized
 * already): two admins demoting each other at once must count the admins one after the other.
 */
export async function lockTeamUsers(db: Executor, teamId: string): Promise<void> {
  await lockedForUpdate(db, db.selectFrom('users').select('id').where('team_id', '=', teamId).orderBy('id')).execute();
}

export async function updateUser(db: Executor, id: string, set: Partial<Omit<UserRow, 'id' | 'team_id' | 'created_at'>>): Promise<void> {
  await db.updateTable('users').set(set).where('id', '=', id).execute();
}

/** Passkeys and how many, per user of `ids`. */
export async function passkeyCounts(db: Executor, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('user_passkeys')
    .select(['user_id', db.fn.countAll<number>().as('n')])
    .where('user_id', 'in', ids)
    .groupBy('user_id')
    .execute();
  return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
}

export async function insertLink(db: Executor, row: UserLinksTable): Promise<void> {
  await db.insertInto('user_links').values(row).execute();
}

export const findLink = (db: Executor, tokenHash: string) => db.selectFrom('user_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();

/** Deletes a user's links (a used link, or every older one when a new one is issued); returns how many went. */
export async function deleteLinks(db: Executor, userId: string): Promise<number> {
  const result = await db.deleteFrom('user_links').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertSession(db: Executor, row: ConsoleSessionRow): Promise<void> {
  await db.insertInto('user_sessions').values(row).execute();
}

/** A live session and its user, by the cookie's token hash. */
export function findSession(db: Executor, tokenHash: string) {
  return db
    .selectFrom('user_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      's.id',
      's.user_id',
      's.mode',
      's.csrf_token',
      's.method',
      's.last_seen_at',
      's.expires_at',
      's.revoked_at',
      'u.team_id',
      'u.email',
      'u.role',
      'u.disabled_at',
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** A session and the user fields it acts with, as findSession reads them. */
export type SessionRecord = NonNullable<Awaited<ReturnType<typeof findSession>>>;

export async function touchSession(db: Executor, tokenHash: string, at: number): Promise<void> {
  await db.updateTable('user_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
}

export async function setSessionMode(db: Executor, tokenHash: string, mode: ConsoleSessionRow['mode']): Promise<void> {
  await db.updateTable('user_sessions').set({ mode }).where('token_hash', '=', tokenHash).execute();
}

export async function revokeSession(db: Executor, tokenHash: string, at: number): Promise<void> {
  await db.updateTable('user_sessions').set({ revoked_at: at }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).execute();
}

/** Ends every live session of a user; returns how many were live. */
export async function revokeSessionsOf(db: Executor, userId: string, at: number): Promise<number> {
  const result = await db.updateTable('user_sessions').set({ revoked_at: at }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertPasskey(db: Executor, row: PasskeyRow): Promise<void> {
  await db.insertInto('user_passkeys').values(row).execute();
}

export const passkeysOf = (db: Executor, userId: string) => db.selectFrom('user_passkeys').selectAll().where('user_id', '=', userId).execute();

export const findPasskey = (db: Executor, id: string) => db.selectFrom('user_passkeys').selectAll().where('id', '=', id).executeTakeFirst();

/**
 * Notes a passkey's use: its new counter must exceed the stored one (or both be 0, for authenticators that
 * do not count), so that of two sign-ins by a cloned authenticator with one counter value only one passes.
 */
export async function usePasskey(db: Executor, id: string, counter: number, at: number): Promise<boolean> {
  const result = await db
    .updateTable('user_passkeys')
    .set({ counter, last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('counter', '<', counter), eb.and([eb('counter', '=', 0), eb(eb.val(counter), '=', 0)])]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deletePasskeysOf(db: Executor, userId: string): Promise<number> {
  const result = await db.deleteFrom('user_passkeys').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Stores a challenge, and forgets the expired ones: anyone may ask for a sign-in challenge, so none may pile up. */
export async function insertChallenge(db: Executor, row: SignInChallengesTable, now: number): Promise<void> {
  await db.deleteFrom('sign_in_challenges').where('expires_at', '<=', now).execute();
  await db.insertInto('sign_in_challenges').values(row).execute();
}

/** Spends a challenge: deleted on its first use, so that none answers twice; undefined when unknown, spent or expired. */
export async function spendChallenge(db: Executor, id: string, purpose: SignInChallengesTable['purpose'], now: number) {
  const row = await db.selectFrom('sign_in_challenges').selectAll().where('id', '=', id).where('purpose', '=', purpose).executeTakeFirst();
  if (!row) return undefined;
  const gone = await db.deleteFrom('sign_in_challenges').where('id', '=', id).executeTakeFirst();
  // Another request spent it between the read and the delete.
  if (Number(gone.numDeletedRows) !== 1) return undefined;
  await db.deleteFrom('sign_in_challenges').where('expires_at', '<=', now).execute();
  return row.expires_at > now ? row : undefined;
}
