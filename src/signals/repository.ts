// The signal thresholds of each world (table signal_thresholds): the rows behind thresholds.ts.
import type { Executor } from '../db/database.js';
import type { SignalThresholdsTable } from '../db/schema.js';
import type { World } from '../world.js';
import { inWorld } from '../db/in-world.js';

type ThresholdColumns = Omit<SignalThresholdsTable, 'team_id' | 'mode' | 'updated_at'>;
type ThresholdName = keyof ThresholdColumns;

/** A world's stored thresholds (`names` of them), or undefined when it keeps the defaults. */
export function findThresholdRow<N extends ThresholdName>(db: Executor, world: World, names: readonly N[]): Promise<Pick<ThresholdColumns, N> | undefined> {
  return db.selectFrom('signal_thresholds').select(names).$call(inWorld(world)).executeTakeFirst() as never;
}

/** Writes only the thresholds `changes` names: two changes of different thresholds at once both stay. */
export async function upsertThresholds(db: Executor, world: World, defaults: ThresholdColumns, changes: Partial<ThresholdColumns>, at: number): Promise<void> {
  await db
    .insertInto('signal_thresholds')
    .values({ team_id: world.teamId, mode: world.mode, ...defaults, ...changes, updated_at: at })
    .onConflict((oc) => oc.columns(['team_id', 'mode']).doUpdateSet({ ...changes, updated_at: at }))
    .execute();
}
