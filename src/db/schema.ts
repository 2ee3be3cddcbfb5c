// Row types of every table. Times are integer microseconds since the epoch
// (exact, sortable and the same type on SQLite and PostgreSQL); they become
// ISO 8601 strings only at the API edge.
import type { Generated } from 'kysely';

export type Mode = 'sandbox' | 'production';

export interface TeamsTable {
  id: string;
  name: string;
  parent_id: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  team_id: string;
  mode: Mode;
  /** SHA-256 of the key text, hex. The key itself is never stored. */
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
}

export interface TagsTable {
  id: string;
  team_id: string;
  mode: Mode;
  protocol: string;
  url: string;
  comment: string | null;
  session_duration: number;
  status: 'created' | 'configured';
  configured_at: number | null;
  inserted_at: number;
  updated_at: number;
}

/** Maintained with every insert/delete so that GET /tags never counts a team's rows. */
export interface TagCountsTable {
  team_id: string;
  mode: Mode;
  tag_count: number;
}

/** The outbox: one row per lifecycle event, written in the transaction of the change. */
export interface EventsTable {
  seq: Generated<number>;
  id: string;
  team_id: string;
  mode: Mode;
  type: string;
  tag_id: string;
  /** The JSON payload `{type, timestamp, data}` exactly as it will be delivered. */
  payload: string;
  created_at: number;
}

/** Small key/value store for deployment state (bootstrap marker, generated key material). */
export interface SettingsTable {
  name: string;
  value: string;
}

export interface Database {
  teams: TeamsTable;
  api_keys: ApiKeysTable;
  tags: TagsTable;
  tag_counts: TagCountsTable;
  events: EventsTable;
  settings: SettingsTable;
}
