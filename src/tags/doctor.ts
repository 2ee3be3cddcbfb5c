// `tapproof doctor`: the stored per-world tag counters (what GET /tags reports
// as total_count) checked against the rows they count, and repaired on request.
import type { Db } from '../db/database.js';
import * as tagsRepo from './repository.js';
import type { CounterDrift } from './repository.js';

export interface DoctorReport {
  drift: CounterDrift[];
  /** True when the drift was repaired (in the same transaction that found it). */
  fixed: boolean;
}

/** Reads the drift; with `fix`, sets every drifted counter to its row count in one transaction. */
export async function checkTagCounters(db: Db, options: { fix: boolean }): Promise<DoctorReport> {
  if (!options.fix) return { drift: await tagsRepo.findCounterDrift(db.kysely), fixed: false };
  return db.kysely.transaction().execute(async (trx) => {
    await tagsRepo.lockTagCounters(trx);
    const drift = await tagsRepo.findCounterDrift(trx);
    for (const world of drift) await tagsRepo.setTagCount(trx, world, world.rows);
    return { drift, fixed: drift.length > 0 };
  });
}

/** One line per drifted world: `team_… sandbox: counter 7, rows 3 (+4)`. */
export function driftLine(world: CounterDrift, fixed: boolean): string {
  const delta = world.counter - world.rows;
  return `${world.teamId} ${world.mode}: counter ${world.counter}, rows ${world.rows} (${delta > 0 ? '+' : ''}${delta})${fixed ? ', fixed' : ''}`;
}
