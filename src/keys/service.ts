import { notifyInTransaction, touchAfterCommit } from '../db/change-feed.js';
import type { Executor } from '../db/database.js';
import type { Mode, Role } from '../db/schema.js';
import { isId, newId } from '../ids.js';
import type { KeysContext } from './context.js';
import type { Clock } from '../time.js';
import * as teamsRepo from '../teams/index.js';
import type { Actor, Caller, Principal, World } from '../world.js';
import { recordAudit } from '../audit/index.js';
import type { Db } from '../db/database.js';
import { hashKeyText, modeOfKeyText, newKeyText } from './key-text.js';
import * as keysRepo from './repository.js';
import type { KeyRow } from './repository.js';
import { DomainError, refusal } from '../errors.js';
import { inTransaction } from '../db/transaction.js';

/** What a new key may be given beside its team and mode. */
export interface KeyOptions {
  /** admin when not given: a team's first key must be able to make the others. */
  role?: Role;
  name?: string | null;
  /** Microseconds. */
  expiresAt?: number | null;
}

/** A key as just made: its row, and its text, which is never stored nor shown again. */
export interface NewKey {
  id: string;
  key: string;
  row: KeyRow;
}

/** Creates a key and returns its text, which is never stored nor shown again. */
export async function createKey(db: Executor, teamId: string, mode: Mode, clock: Clock, options: KeyOptions = {}): Promise<NewKey> {
  if (!(await teamsRepo.findTeam(db, teamId))) throw refusal(`no team ${teamId}`);
  const key = newKeyText(mode);
  const row: KeyRow = {
    id: newId('key'),
    team_id: teamId,
    mode,
    key_hash: hashKeyText(key),
    role: options.role ?? 'admin',
    name: options.name ?? null,
    created_at: clock.nowMicros(),
    expires_at: options.expiresAt ?? null,
    revoked_at: null,
    replaced_by: null,
    last_used_at: null,
  };
  await keysRepo.insertKey(db, row);
  return { id: row.id, key, row };
}

/** A key made by someone (POST /keys, `tapproof keys create`): the key and its audit record in one transaction. */
export async function issueKey(db: Db, caller: Caller, clock: Clock, options: KeyOptions = {}): Promise<NewKey> {
  return inTransaction(db, async (trx) => {
    const made = await createKey(trx, caller.teamId, caller.mode, clock, options);
    const { role, name, expires_at } = made.row;
    await recordAudit(trx, caller, made.row.created_at, [{ operation: 'key.create', resourceId: made.id, changes: { role, name, expires_at } }]);
    return made;
  });
}

type Announcer = Pick<KeysContext, 'db' | 'clock' | 'principals'>;

/** How long a revoke's answer waits at most for every server to drop the key (docs/keys.md#how-a-change-reaches-every-server). */
const DELIVERY_TIMEOUT_MS = 2_000;

/**
 * Runs a change that revokes or shortens a key, and tells every server so that none keeps the key
 * in its principal cache: PostgreSQL NOTIFY in the same transaction; SQLite, a rewrite of the
 * watched revocations file once the change has committed. The change answers only once the announcement
 * has been delivered: on PostgreSQL every listening server has acknowledged that it dropped the key, so a
 * request sent after the answer is refused by any of them; on SQLite this process's watcher has seen the
 * file change (docs/keys.md#how-a-change-reaches-every-server).
 */
async function changeKey<T>(ctx: Announcer, change: (trx: Executor) => Promise<{ hash: string; result: T } | undefined>): Promise<T | undefined> {
  const address = keysRepo.keysFeed(ctx.db);
  let delivered: Promise<void> = Promise.resolve();
  const changed = await inTransaction(ctx.db, async (trx) => {
    const done = await change(trx);
    if (done) {
      await notifyInTransaction(ctx.db, trx, address, done.hash);
      // Counted before the commit, so that every server counted is sent the change and none is missed.
      ({ delivered } = await ctx.principals.delivery(trx, done.hash, DELIVERY_TIMEOUT_MS));
    }
    return done;
  });
  if (!changed) return undefined;
  ctx.principals.evict(changed.hash);
  touchAfterCommit(ctx.db, address, ctx.clock.nowMicros());
  await delivered;
  return changed.result;
}

/** Revokes a key (a second revoke keeps the first time); false when there is no such key. */
export async function revoke(ctx: Announcer, keyId: string, actor: Actor): Promise<boolean> {
  const found = await changeKey(ctx, async (trx) => {
    const at = ctx.clock.nowMicros();
    const row = await keysRepo.revokeKey(trx, keyId, at);
    // A second revoke keeps the first time and changes nothing: nothing to record.
    if (row?.revoked_at === at)
      await recordAudit(trx, { teamId: row.team_id, mode: row.mode, actor }, at, [
        { operation: 'key.revoke', resourceId: keyId, changes: { revoked_at: row.revoked_at } },
      ]);
    return row && { hash: row.key_hash, result: true };
  });
  return found === true;
}

/**
 * Rolls a live key of a world: a new key of the same role and name (and expiry), the old one ending
 * `overlapSeconds` from now. A key is rolled once; a revoked, expired or already rolled key is 409.
 */
export async function roll(ctx: Announcer, world: Caller, keyId: string, overlapSeconds: number): Promise<NewKey> {
  const made = await changeKey(ctx, async (trx) => {
    const old = await keysRepo.findKeyInWorld(trx, keyId, world.teamId, world.mode);
    if (!old) throw new DomainError('NotFound');
    const fresh = await createKey(trx, world.teamId, world.mode, ctx.clock, { role: old.role, name: old.name, expiresAt: old.expires_at });
    const now = fresh.row.created_at;
    if (!(await keysRepo.replaceKey(trx, old.id, fresh.id, now + overlapSeconds * 1_000_000, now))) {
      const lost = (await keysRepo.findKey(trx, old.id))!;
      throw new DomainError(lost.replaced_by !== null ? 'KeyRolled' : 'KeyRevoked', [], undefined, whyNotLive(lost));
    }
    await recordAudit(trx, world, now, [
      { operation: 'key.roll', resourceId: old.id, changes: { replaced_by: fresh.id, ends_at: now + overlapSeconds * 1_000_000 } },
    ]);
    return { hash: old.key_hash, result: fresh };
  });
  return made!;
}

/** Why a key cannot roll, read after its roll lost (another roll may have replaced it meanwhile). */
function whyNotLive(key: KeyRow): string {
  if (key.replaced_by !== null) return `the key was already rolled to ${key.replaced_by}`;
  if (key.revoked_at !== null) return 'the key is revoked';
  return 'the key has expired';
}

const isLive = (row: Pick<KeyRow, 'revoked_at' | 'expires_at'>, now: number) => row.revoked_at === null && (row.expires_at === null || row.expires_at > now);

/**
 * Resolves a bearer key to its principal, or null. The lookup is by hash, so
 * the comparison never touches the secret itself (no timing oracle on it).
 * A cached key is answered synchronously (no promise on the request path).
 */
export function authenticate(ctx: Pick<KeysContext, 'db' | 'clock' | 'principals' | 'keyUses'>, keyText: string): Principal | null | Promise<Principal | null> {
  const mode = modeOfKeyText(keyText);
  if (mode === null) return null;
  const hash = hashKeyText(keyText);
  const cached = ctx.principals.get(hash);
  // The hash covers the text, mode prefix included: a cached principal has the mode the text claims.
  if (cached !== undefined) {
    if (cached.refresh) void refreshPrincipal(ctx, hash, mode);
    // An expiry needs no message between servers: each compares it with its own clock, at every use.
    if (cached.principal.expiresAt !== null && cached.principal.expiresAt <= ctx.clock.nowMicros()) return null;
    ctx.keyUses.note(cached.principal.id);
    return cached.principal;
  }
  return lookUpPrincipal(ctx, hash, mode).then((principal) => {
    if (principal !== null) ctx.keyUses.note(principal.id);
    return principal;
  });
}

async function lookUpPrincipal(
  { db, clock, principals: cache }: Pick<KeysContext, 'db' | 'clock' | 'principals'>,
  hash: string,
  mode: Mode,
): Promise<Principal | null> {
  const stamp = cache.stamp();
  const row = await keysRepo.findKeyByHash(db.kysely, hash);
  if (!row || !isLive(row, clock.nowMicros()) || row.mode !== mode) {
    cache.drop(hash, stamp);
    return null;
  }
  const principal: Principal = { via: 'key', id: row.id, teamId: row.team_id, mode: row.mode, role: row.role, expiresAt: row.expires_at };
  cache.set(hash, principal, stamp);
  return principal;
}

/** Re-reads a cached key off the request path; a failure only drops the entry. */
async function refreshPrincipal(ctx: Pick<KeysContext, 'db' | 'clock' | 'principals'>, hash: string, mode: Mode): Promise<void> {
  const stamp = ctx.principals.stamp();
  try {
    await lookUpPrincipal(ctx, hash, mode);
  } catch {
    ctx.principals.drop(hash, stamp);
  }
}

/** A key of the world by id, or undefined (an id that is not a key id names nothing). */
export const findKey = (db: Executor, world: World, id: string): Promise<KeyRow | undefined> =>
  isId('key', id) ? keysRepo.findKeyInWorld(db, id, world.teamId, world.mode) : Promise.resolve(undefined);

/** A key of the world by id; NotFound for any other. */
export async function getKey(db: Executor, world: World, id: string): Promise<KeyRow> {
  const key = await findKey(db, world, id);
  if (!key) throw new DomainError('NotFound');
  return key;
}

/** The world's keys. */
export const listKeys = (db: Executor, world: World) => keysRepo.listKeys(db, world.teamId, world.mode);
