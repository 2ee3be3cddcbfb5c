// Who proved ownership of a verification's item, and when (docs/extension.md,
// "Ownership"): the team's own verifications of the key's mode only.
import type { Kernel } from '../../kernel.js';
import { DomainError } from '../../errors.js';
import * as verificationsRepo from '../../verifications/index.js';
import type { World } from '../../world.js';
import * as proofsRepo from './repository.js';

export async function list(ctx: Kernel, world: World, verificationId: string): Promise<proofsRepo.OwnershipProofRow[]> {
  if (!(await verificationsRepo.findVerification(ctx.db.kysely, world, verificationId))) throw new DomainError('NotFound');
  return proofsRepo.list(ctx.db.kysely, verificationId);
}
