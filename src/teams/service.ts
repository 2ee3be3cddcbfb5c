import type { Executor } from '../db/database.js';
import { DomainError, problem, refusal, validationFailed } from '../errors.js';
import type { SignalsState } from '../signals/index.js';
import { changeThresholds, findThresholds, type Thresholds } from '../signals/index.js';
import type { Kernel } from '../kernel.js';
import type { Actor, Caller, World } from '../world.js';
import { changedFields, recordAudit } from '../audit/index.js';
import { inTransaction } from '../db/transaction.js';
import type { Db } from '../db/database.js';
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

/** A team made by someone (the CLI, the first start): the team and its audit record in one transaction. */
export async function addTeam(db: Db, name: string, parentId: string | null, clock: Clock, actor: Actor): Promise<{ id: string }> {
  return inTransaction(db, async (trx) => {
    const team = await createTeam(trx, name, parentId, clock);
    await recordAudit(trx, { teamId: team.id, mode: null, actor }, clock.nowMicros(), [
      { operation: 'team.create', resourceId: team.id, changes: { name, parent_id: parentId } },
    ]);
    return team;
  });
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
export async function updateCurrentTeam(ctx: Kernel & SignalsState, world: Caller, attributes: Record<string, unknown>) {
  const refused = Object.keys(attributes).filter((name) => name !== 'signal_thresholds');
  if (refused.length > 0)
    throw validationFailed(
      refused.map((name) => problem(name, READ_ONLY.includes(name) ? `${name} cannot be changed by this operation` : `${name} is not a team attribute`)),
    );
  if (!('signal_thresholds' in attributes)) return currentTeam(ctx.db.kysely, world);
  const changes = attributes.signal_thresholds as Partial<Thresholds>;
  const thresholds = await inTransaction(ctx.db, async (trx) => {
    const at = ctx.clock.nowMicros();
    const before = await findThresholds(trx, world);
    const after = await changeThresholds(trx, world, changes, at);
    const changed = changedFields(before, after, Object.keys(changes) as (keyof Thresholds)[]);
    await recordAudit(trx, world, at, [{ operation: 'team.update', resourceId: world.teamId, changes: { signal_thresholds: changed } }]);
    return after;
  });
  ctx.signalThresholds.set(world, thresholds);
  return { team: await keyTeam(ctx.db.kysely, world), thresholds };
}
