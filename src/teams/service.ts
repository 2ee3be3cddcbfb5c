import type { Executor } from '../db/database.js';
import { refusal } from '../errors.js';
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
