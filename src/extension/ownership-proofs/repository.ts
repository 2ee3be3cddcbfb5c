// All SQL on the history of ownership proofs (written by the extension API's proofs: src/extension/repository.ts saveOwnership).
import type { Executor } from '../../db/database.js';
import type { OwnershipProofsTable } from '../../db/schema.js';

export type OwnershipProofRow = OwnershipProofsTable;

/** The proofs of one verification, oldest first. */
export async function list(db: Executor, verificationId: string): Promise<OwnershipProofRow[]> {
  return db.selectFrom('ownership_proofs').selectAll().where('verification_id', '=', verificationId).orderBy('verified_at').orderBy('request_id').execute();
}
