// What the chip route reads: a tag's chip in the caller's world.
import type { Executor } from '../db/database.js';
import { DomainError } from '../errors.js';
import { isId } from '../ids.js';
import type { World } from '../world.js';
import * as chipsRepo from './repository.js';
import type { ChipRow } from './repository.js';

/** The chip of a tag of the world; NotFound for an unwritten tag, another world's, or a string that is no tag id. */
export async function getTagChip(db: Executor, world: World, tagId: string): Promise<ChipRow> {
  // A string that is not a tag id names nothing (and never reaches the engine: PostgreSQL refuses NUL).
  const found = isId('tag', tagId) ? await chipsRepo.findTagChip(db, world, tagId) : undefined;
  if (!found) throw new DomainError('NotFound');
  return found.chip;
}
