import type { ApiKeysTable, Mode } from '../db/schema.js';
import type { ResourceObject } from '../http/jsonapi.js';
import { isoMicros, isoOrNull } from '../time.js';

/** A key as the API shows it: never its hash, never its secret. */
export function renderKey(
  key: Omit<ApiKeysTable, 'key_hash'>,
): ResourceObject<{ team_id: string; mode: Mode; created_at: string; revoked_at: string | null; last_used_at: string | null }> {
  return {
    type: 'keys',
    id: key.id,
    attributes: {
      team_id: key.team_id,
      mode: key.mode,
      created_at: isoMicros(key.created_at),
      revoked_at: isoOrNull(key.revoked_at),
      last_used_at: isoOrNull(key.last_used_at),
    },
  };
}
