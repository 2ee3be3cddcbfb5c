import type { Executor } from '../db/database.js';
import { DomainError, problem, refusal, validationFailed } from '../errors.js';
import type { SignalsState } from '../signals/feature.js';
import { changeThresholds, findThresholds, type Thresholds } from '../signals/thresholds.js';
import type { Kernel } from '../kernel.js';
import type { World } from '../world.js';
import { textProblem } from '../http/text-rules.js';
import { newId } from '../ids.js';
import type { Clock } from '../time.js';
import * as teamsRepo from './repository.js';

export async function createTeam(db: Executor, name: string, parentId: string | null, clock: Clock): Promise<{ id: string }> {
  if (name.trim() === '') throw refusal('team name must not be empty');
  const problem = textProblem('team name', name);
  if (problem) throw refusal(problem);
  if (parentId !== null && !(await teamsRepo.findTeam(db, parentId))) throw refusal(`no team ${parentId}`);
  const id = newId('team');
  await teamsRepo.insertTeam(db, { id, name, parent_id: parentId, created_at: clock.nowMicros() });
  return { id };
}

async function keyTeam(db: Executor, world: World): Promise<teamsRepo.TeamRow> {
  const team = await teamsRepo.findTeam(db, world.teamId);
  // A valid key's team exists (keys are never moved); a missing one is not the client's fault.
  if (!team) throw new DomainError('Internal');
  return team;
}

/** The key's team and its world's signal thresholds. */
export async function currentTeam(db: Executor, world: World): Promise<{ team: teamsRepo.TeamRow; thresholds: Thresholds }> {
  return { team: await keyTeam(db, world), thresholds: await findThresholds(db, world) };
}

const READ_ONLY = ['name', 'parent_id', 'created_at'];

/** PATCH /teams/current: of the team's attributes only signal_thresholds can change (422 for the others). */
export async function updateCurrentTeam(ctx: Kernel & SignalsState, world: World, attributes: Record<string, unknown>) {
  const refused = Object.keys(attributes).filter((name) => name !== 'signal_thresholds');
  if (refused.length > 0)
    throw validationFailed(
      refused.map((name) => problem(name, READ_ONLY.includes(name) ? `${name} cannot be changed by this operation` : `${name} is not a team attribute`)),
    );
  if (!('signal_thresholds' in attributes)) return currentTeam(ctx.db.kysely, world);
  const thresholds = await changeThresholds(ctx.db.kysely, world, attributes.signal_thresholds as Partial<Thresholds>, ctx.clock.nowMicros());
  ctx.signalThresholds.set(world, thresholds);
  return { team: await keyTeam(ctx.db.kysely, world), thresholds };
}
