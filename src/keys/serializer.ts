import type { ApiKeysTable, Mode, Role } from '../db/schema.js';
import type { ResourceObject } from '../http/jsonapi.js';
import { isoMicros, isoOrNull } from '../time.js';

export interface KeyAttributes {
  team_id: string;
  mode: Mode;
  role: Role;
  name: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  replaced_by: string | null;
  last_used_at: string | null;
  /** Only in the answer that made the key. */
  key?: string;
}

/** A key as the API shows it: never its hash; its text only in the answer that made it. */
export function renderKey(key: Omit<ApiKeysTable, 'key_hash'>, text?: string): ResourceObject<KeyAttributes> {
  return {
    type: 'keys',
    id: key.id,
    attributes: {
      team_id: key.team_id,
      mode: key.mode,
      role: key.role,
      name: key.name,
      created_at: isoMicros(key.created_at),
      expires_at: isoOrNull(key.expires_at),
      revoked_at: isoOrNull(key.revoked_at),
      replaced_by: key.replaced_by,
      last_used_at: isoOrNull(key.last_used_at),
      ...(text === undefined ? {} : { key: text }),
    },
  };
}
