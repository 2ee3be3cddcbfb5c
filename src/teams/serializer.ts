import type { ResourceObject } from '../http/jsonapi.js';
import type { TeamsTable } from '../db/schema.js';
import { isoMicros } from '../time.js';

export function renderTeam(
  team: Pick<TeamsTable, 'id' | 'name' | 'parent_id' | 'created_at'>,
): ResourceObject<{ name: string; parent_id: string | null; created_at: string }> {
  return { type: 'teams', id: team.id, attributes: { name: team.name, parent_id: team.parent_id, created_at: isoMicros(team.created_at) } };
}
