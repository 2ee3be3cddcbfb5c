import type { ResourceObject } from '../http/jsonapi.js';
import type { TeamsTable } from '../db/schema.js';
import type { Thresholds } from '../signals/index.js';
import { isoMicros } from '../time.js';

export interface TeamAttributes {
  name: string;
  parent_id: string | null;
  created_at: string;
  signal_thresholds: Thresholds;
}

/** A team as the key's world sees it: the thresholds are those of the key's mode. */
export function renderTeam(team: Pick<TeamsTable, 'id' | 'name' | 'parent_id' | 'created_at'>, thresholds: Thresholds): ResourceObject<TeamAttributes> {
  return {
    type: 'teams',
    id: team.id,
    attributes: { name: team.name, parent_id: team.parent_id, created_at: isoMicros(team.created_at), signal_thresholds: { ...thresholds } },
  };
}
