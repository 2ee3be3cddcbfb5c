import { writeFileSync } from 'node:fs';
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { newId } from '../ids.js';
import type { KeysContext } from './context.js';
import type { Clock } from '../time.js';
import * as teamsRepo from '../teams/repository.js';
import type { Principal } from '../world.js';
import { hashKeyText, modeOfKeyText, newKeyText } from './key-text.js';
import * as keysRepo from './repository.js';
import { refusal } from '../errors.js';
import { inTransaction } from '../db/transaction.js';

/** Creates a key and returns its text, which is never stored nor shown again. */
export async function createKey(db: Executor, teamId: string, mode: Mode, clock: Clock): Promise<{ id: string; key: string }> {
  if (!(await teamsRepo.findTeam(db, teamId))) throw refusal(`no team ${teamId}`);
  const key = newKeyText(mode);
  const id = newId('key');
  await keysRepo.insertKey(db, { id, team_id: teamId, mode, key_hash: hashKeyText(key), created_at: clock.nowMicros(), revoked_at: null, last_used_at: null });
  return { id, key };
}

/**
 * Revokes a key, and tells every server so that none keeps it in its principal
 * cache: PostgreSQL NOTIFY in the same transaction; SQLite, a rewrite of the
 * watched revocations file once the revoke has committed.
 */
export async function revoke({ db, clock, principals }: Pick<KeysContext, 'db' | 'clock' | 'principals'>, keyId: string): Promise<boolean> {
  const key = await inTransaction(db, async (trx) => {
    const row = await keysRepo.revokeKey(trx, keyId, clock.nowMicros());
    if (row && db.dialect === 'postgres') await keysRepo.notifyKeyRevoked(trx, row.key_hash);
    return row;
  });
  if (key) {
    principals.evict(key.key_hash);
    // SQLite: servers in other processes watch this file and drop their cached principals.
    if (db.revocationsFile) writeFileSync(db.revocationsFile, `${clock.nowMicros()}\n`);
  }
  return key !== undefined;
}

/**
 * Resolves a bearer key to its principal, or null. The lookup is by hash, so
 * the comparison never touches the secret itself (no timing oracle on it).
 */
export async function authenticate(ctx: Pick<KeysContext, 'db' | 'principals' | 'keyUses'>, keyText: string): Promise<Principal | null> {
  const mode = modeOfKeyText(keyText);
  if (mode === null) return null;
  const hash = hashKeyText(keyText);
  const cached = ctx.principals.get(hash);
  // The hash covers the text, mode prefix included: a cached principal has the mode the text claims.
  if (cached !== undefined) {
    if (cached.refresh) void refreshPrincipal(ctx, hash, mode);
    ctx.keyUses.note(cached.principal.keyId);
    return cached.principal;
  }
  const principal = await lookUpPrincipal(ctx, hash, mode);
  if (principal !== null) ctx.keyUses.note(principal.keyId);
  return principal;
}

async function lookUpPrincipal({ db, principals: cache }: Pick<KeysContext, 'db' | 'principals'>, hash: string, mode: Mode): Promise<Principal | null> {
  const stamp = cache.stamp();
  const row = await keysRepo.findKeyByHash(db.kysely, hash);
  if (!row || row.revoked_at !== null || row.mode !== mode) {
    cache.drop(hash, stamp);
    return null;
  }
  const principal: Principal = { keyId: row.id, teamId: row.team_id, mode: row.mode };
  cache.set(hash, principal, stamp);
  return principal;
}

/** Re-reads a cached key off the request path; a failure only drops the entry. */
async function refreshPrincipal(ctx: Pick<KeysContext, 'db' | 'principals'>, hash: string, mode: Mode): Promise<void> {
  const stamp = ctx.principals.stamp();
  try {
    await lookUpPrincipal(ctx, hash, mode);
  } catch {
    ctx.principals.drop(hash, stamp);
  }
}
