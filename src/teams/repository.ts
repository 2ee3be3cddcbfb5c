import type { Executor } from '../db/database.js';
import type { TeamsTable } from '../db/schema.js';

export type TeamRow = TeamsTable;

export async function insertTeam(db: Executor, row: TeamRow): Promise<void> {
  await db.insertInto('teams').values(row).execute();
}

export async function findTeam(db: Executor, id: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every team, oldest first (an operator's listing). */
export async function listTeams(db: Executor): Promise<TeamRow[]> {
  return db.selectFrom('teams').selectAll().orderBy('created_at').orderBy('id').execute();
}

/** Every team's id (the deployment's jobs walk the teams one by one). */
export async function listTeamIds(db: Executor): Promise<string[]> {
  return (await db.selectFrom('teams').select('id').execute()).map((r) => r.id);
}

/** Whether the deployment has a team yet (the first start makes one). */
export async function hasAnyTeam(db: Executor): Promise<boolean> {
  return (await db.selectFrom('teams').select('id').limit(1).executeTakeFirst()) !== undefined;
}
