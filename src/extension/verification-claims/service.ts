// The pages a verification was claimed on (docs/extension.md, "Claims"), for the team: its own
// verifications of the key's mode only. Anyone who holds a verification's public id may claim it
// on any number of pages, so the list is the newest ones, with the count of all.
import type { Kernel } from '../../kernel.js';
import { DomainError } from '../../errors.js';
import * as verificationsRepo from '../../verifications/index.js';
import type { World } from '../../world.js';
import { CLAIM_LIMITS } from '../documents.js';
import type { ClaimRow } from '../repository.js';
import * as claimsRepo from './repository.js';

export async function list(ctx: Kernel, world: World, verificationId: string): Promise<{ rows: ClaimRow[]; total: number }> {
  if (!(await verificationsRepo.findVerification(ctx.db.kysely, world, verificationId))) throw new DomainError('NotFound');
  return claimsRepo.list(ctx.db.kysely, verificationId, CLAIM_LIMITS.listed);
}
