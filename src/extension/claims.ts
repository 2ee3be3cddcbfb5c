// Claims: a genuine verification linked to a URL (docs/extension.md,
// GET/POST /claims). A claim's verification must be of the base URL's mode.
import { createHash, randomUUID } from 'node:crypto';
import type { Kernel } from '../kernel.js';
import type { Mode } from '../db/schema.js';
import { DomainError, problem } from '../errors.js';
import { CLAIM_LIMITS, resourceUrlProblem, type ClaimInput } from './documents.js';
import * as extensionRepo from './repository.js';
import { renderPublicVerification, type PublicVerification } from './serializer.js';

const urlHash = (url: string) => createHash('sha256').update(url).digest('hex');

/** GET /claims?resource_url=…: oldest first, at most 100, so a URL's first claims cannot be pushed out. */
export async function claimsOf({ db: { kysely: db } }: Pick<Kernel, 'db'>, mode: Mode, resourceUrl: unknown): Promise<PublicVerification[]> {
  if (resourceUrl === undefined || resourceUrl === '') throw new DomainError('ExtResourceUrlRequired');
  // A repeated parameter (an array) is not one URL.
  if (resourceUrlProblem(resourceUrl) !== null) throw new DomainError('ExtInvalidResourceUrl');
  const url = resourceUrl as string;
  const rows = await extensionRepo.listClaims(db, mode, url, urlHash(url), CLAIM_LIMITS.listed);
  return rows.map(({ claim, verification }) => renderPublicVerification(verification, claim));
}

/**
 * POST /claims, its body read (documents.ts): the verification.
 * A verification claims a URL once: a repeat answers the claim stored first (`created` false).
 */
export async function createClaim(
  { db: { kysely: db }, clock }: Pick<Kernel, 'db' | 'clock'>,
  mode: Mode,
  { verificationId, resourceUrl, note }: ClaimInput,
): Promise<{ claim: { id: string; verification_id: string }; created: boolean }> {
  const platformId = verificationId.length === 26 ? `vrf_${verificationId.slice(4)}` : null;
  const [verification] = platformId ? (await extensionRepo.findPublicVerifications(db, [platformId])).filter((v) => v.mode === mode) : [];
  if (!verification) throw new DomainError('ExtClaimVerificationNotFound');
  if (verification.genuine !== 1) {
    throw new DomainError('ExtVerificationNotValid', [problem('verification_id', `the scan was not genuine (${verification.reason})`)]);
  }
  const { claim, created } = await extensionRepo.insertClaim(db, {
    id: randomUUID(),
    verification_id: verification.id,
    mode,
    resource_url: resourceUrl,
    resource_url_hash: urlHash(resourceUrl),
    note,
    created_at: clock.nowMicros(),
  });
  return { claim: { id: claim.id, verification_id: verificationId }, created };
}
