// All SQL of the extension API: verifications as the public sees them (with
// the tag's catalog links and the proven ownership), claims, challenges.
import type { Executor } from '../db/database.js';
import { executeShaped } from '../db/precompiled.js';
import type { TamperState } from '../chips/index.js';
import type { ChallengesTable, ClaimsTable, Mode, OwnershipsTable } from '../db/schema.js';

export type ClaimRow = ClaimsTable;
export type ChallengeRow = ChallengesTable;
export type OwnershipRow = OwnershipsTable;

/** A verification with what the extension shows of it. */
export interface PublicVerificationRow {
  id: string;
  mode: Mode;
  genuine: number;
  reason: string;
  scanned_at: number;
  country: string | null;
  tamper_permanent: TamperState | null;
  tamper_current: TamperState | null;
  /** The tag's current session_duration, in seconds: the window of a scan's first proof (null: the tag is gone). */
  session_duration: number | null;
  product_id: string | null;
  product_name: string | null;
  product_image_url: string | null;
  product_description: string | null;
  token_id: string | null;
  token_chain: 'cardano' | 'ethereum' | null;
  token_name: string | null;
  token_symbol: string | null;
  token_supply: number | null;
  token_contract_address: string | null;
  token_policy_id: string | null;
  token_asset_name: string | null;
  token_number: string | null;
  token_standard: 'erc721' | 'erc1155' | 'erc20' | null;
  ownership_status: 'verified' | null;
  ownership_wallet_address: string | null;
  ownership_verified_at: number | null;
  ownership_chain: 'cardano' | 'ethereum' | null;
  ownership_request_id: string | null;
}

function publicVerifications(db: Executor) {
  return db
    .selectFrom('verifications as v')
    .leftJoin('tags as g', 'g.id', 'v.tag_id')
    .leftJoin('tag_links as l', 'l.tag_id', 'v.tag_id')
    .leftJoin('products as p', 'p.id', 'l.product_id')
    .leftJoin('tokens as t', 't.id', 'l.token_id')
    .leftJoin('ownerships as o', 'o.verification_id', 'v.id')
    .select([
      'v.id',
      'v.mode',
      'v.genuine',
      'v.reason',
      'v.scanned_at',
      'v.country',
      'v.tamper_permanent',
      'v.tamper_current',
      'g.session_duration',
      'p.id as product_id',
      'p.name as product_name',
      'p.image_url as product_image_url',
      'p.description as product_description',
      't.id as token_id',
      't.chain as token_chain',
      't.name as token_name',
      't.symbol as token_symbol',
      't.supply as token_supply',
      't.contract_address as token_contract_address',
      't.policy_id as token_policy_id',
      't.asset_name as token_asset_name',
      't.token_number as token_number',
      't.standard as token_standard',
      'o.status as ownership_status',
      'o.wallet_address as ownership_wallet_address',
      'o.verified_at as ownership_verified_at',
      'o.chain as ownership_chain',
      'o.request_id as ownership_request_id',
    ]);
}

/**
 * The verifications among `ids` (any team; the caller judges mode and genuineness). The public
 * lookup's hot path: its five-table statement is compiled once per id count, not per request.
 */
export async function findPublicVerifications(db: Executor, ids: string[]): Promise<PublicVerificationRow[]> {
  const rows = ids.map((id) => ({ id }));
  return (await executeShaped(db, 'findPublicVerifications', rows, (d, shaped) =>
    publicVerifications(d).where(
      'v.id',
      'in',
      shaped.map((r) => r.id),
    ),
  )) as PublicVerificationRow[];
}

/** The claim stored for the row's verification and URL: the row, or the one already there (a unique index decides a race). */
export async function insertClaim(db: Executor, row: ClaimRow): Promise<{ claim: ClaimRow; created: boolean }> {
  const inserted = await db
    .insertInto('claims')
    .values(row)
    .onConflict((oc) => oc.columns(['verification_id', 'resource_url_hash']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { claim: row, created: true };
  const claim = await db
    .selectFrom('claims')
    .selectAll()
    .where('verification_id', '=', row.verification_id)
    .where('resource_url_hash', '=', row.resource_url_hash)
    .executeTakeFirstOrThrow();
  return { claim, created: false };
}

/** The oldest claims of one URL in one mode, each with its verification (docs/extension.md, Claims). */
export async function listClaims(
  db: Executor,
  mode: Mode,
  resourceUrl: string,
  urlHash: string,
  limit: number,
): Promise<{ claim: ClaimRow; verification: PublicVerificationRow }[]> {
  const claims = await db
    .selectFrom('claims')
    .selectAll()
    .where('mode', '=', mode)
    .where('resource_url_hash', '=', urlHash)
    .where('resource_url', '=', resourceUrl)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  const verifications = new Map((await findPublicVerifications(db, [...new Set(claims.map((c) => c.verification_id))])).map((v) => [v.id, v]));
  return claims.filter((c) => verifications.has(c.verification_id)).map((claim) => ({ claim, verification: verifications.get(claim.verification_id)! }));
}

export async function insertChallenge(db: Executor, row: ChallengeRow): Promise<void> {
  await db.insertInto('challenges').values(row).execute();
}

export async function findChallenge(db: Executor, id: string): Promise<ChallengeRow | undefined> {
  return db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks an open, unexpired challenge used; false when another proof (or time) got there first. */
export async function useChallenge(db: Executor, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('challenges')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Reopens a challenge that `useChallenge` took in the same transaction. */
export async function unuseChallenge(db: Executor, id: string): Promise<void> {
  await db.updateTable('challenges').set({ used_at: null }).where('id', '=', id).execute();
}

/** Deletes challenges that expired before `before`; returns how many. */
export async function deleteExpiredChallenges(db: Executor, before: number): Promise<number> {
  const result = await db.deleteFrom('challenges').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Records a proven owner and its proof: the first owner when `replaces` is null,
 * else in place of the owner whose proof is `replaces` (its proof is marked
 * replaced). False when the recorded owner is not the one expected: another
 * proof got there first (docs/extension.md, "Ownership").
 */
export async function saveOwnership(db: Executor, row: OwnershipRow, replaces: string | null): Promise<boolean> {
  const { verification_id: _, ...owner } = row;
  const saved = await db
    .insertInto('ownerships')
    .values(row)
    .onConflict((oc) =>
      replaces === null
        ? oc.column('verification_id').doNothing()
        : oc.column('verification_id').doUpdateSet(owner).where('ownerships.request_id', '=', replaces),
    )
    .returning('verification_id')
    .executeTakeFirst();
  if (saved === undefined) return false;
  if (replaces !== null) await db.updateTable('ownership_proofs').set({ replaced_at: row.verified_at }).where('request_id', '=', replaces).execute();
  const { status: __, ...proof } = row;
  await db
    .insertInto('ownership_proofs')
    .values({ ...proof, replaced_at: null })
    .execute();
  return true;
}
