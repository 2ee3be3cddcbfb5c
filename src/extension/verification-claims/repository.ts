// All SQL on the claims of one verification, for its team (the claims themselves are written by the
// extension API: src/extension/repository.ts insertClaim).
import type { Executor } from '../../db/database.js';
import type { ClaimRow } from '../repository.js';

/**
 * The newest `limit` claims of one verification, newest first, and how many it has: one statement, the
 * count a window over every claim of the verification (the claims_verification_url index finds them).
 */
export async function list(db: Executor, verificationId: string, limit: number): Promise<{ rows: ClaimRow[]; total: number }> {
  const found = await db
    .selectFrom('claims')
    .selectAll()
    .select((eb) => eb.fn.countAll<number | string>().over().as('total'))
    .where('verification_id', '=', verificationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return { rows: found.map(({ total: _, ...row }) => row), total: Number(found[0]?.total ?? 0) };
}
