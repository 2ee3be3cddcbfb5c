// Which verifications the public extension API shows (docs/extension.md):
// only genuine ones (the object has no genuineness field, so a landing page
// could not tell a replay from a genuine tap), and only those of the base URL's
// mode: production verifications at {extPrefix}, sandbox ones at
// {extPrefix}/sandbox, so a landing page wired to the production base can
// never display a sandbox verification.
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { DomainError } from '../errors.js';
import * as extensionRepo from './repository.js';
import type { PublicVerificationRow } from './repository.js';
import { platformIdsOf } from '../verifications/index.js';

/** The genuine verification of `mode` that a path id (VRF_ id or UUID) names; 400 for a malformed id, 404 for an unknown or not genuine one (docs/extension.md#ids). */
export async function findShownVerification(db: Executor, mode: Mode, pathId: string): Promise<PublicVerificationRow> {
  const ids = platformIdsOf(pathId);
  if (ids === null) throw new DomainError('ExtInvalidVerificationId');
  const found = (await extensionRepo.findPublicVerifications(db, ids)).filter((v) => v.mode === mode && v.genuine === 1);
  if (found.length === 0) throw new DomainError('ExtVerificationNotFound');
  return found[0]!;
}
