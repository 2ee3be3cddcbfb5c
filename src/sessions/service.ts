// Reading a session back (GET /sessions/:id); how scans are placed in sessions: ./placement.ts.
import type { Db } from '../db/database.js';
import { DomainError } from '../errors.js';
import type { World } from '../world.js';
import * as sessionsRepo from './repository.js';
import type { SessionRow } from './repository.js';

export async function getSession({ db }: { db: Db }, world: World, id: string): Promise<{ row: SessionRow; verificationIds: string[] }> {
  const row = await sessionsRepo.findSession(db.kysely, world, id);
  if (!row) throw new DomainError('NotFound');
  return { row, verificationIds: await sessionsRepo.sessionVerificationIds(db.kysely, row) };
}
