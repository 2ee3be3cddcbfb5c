import { sql, type Selectable } from 'kysely';
import { inChunks } from '../db/chunked.js';
import type { Executor } from '../db/database.js';
import type { AuditEventsTable, Mode } from '../db/schema.js';
import type { AuditOperation } from './operations.js';

export type AuditRow = Selectable<AuditEventsTable>;

export async function insertAuditEvents(db: Executor, rows: AuditRow[]): Promise<void> {
  await inChunks(rows, (part) => db.insertInto('audit_events').values(part).execute());
}

export interface AuditFilter {
  actor?: string;
  resource?: string;
  operation?: AuditOperation;
  /** Microseconds, included. */
  since?: number;
  /** Microseconds, excluded. */
  until?: number;
  /** The page continues after this (occurred_at, id), newest first. */
  before?: readonly [number, string];
  limit: number;
}

/** Whose events: a team and mode each named (null: the deployment's own, no team or mode) or left open (undefined: any). */
export interface AuditWhere {
  teamId?: string | null;
  mode?: Mode | null;
  /** With a mode: the team's own events (users, the team itself: mode null) too, which belong to both its worlds. */
  teamWide?: boolean;
}

/**
 * Events newest first. A world's list and its filters by actor or resource are each an index range of
 * their own (migration 0029); the other filters are read from the range's rows.
 */
export async function listAuditEvents(db: Executor, where: AuditWhere, filter: AuditFilter): Promise<AuditRow[]> {
  let query = db.selectFrom('audit_events').selectAll();
  if (where.teamId !== undefined) query = where.teamId === null ? query.where('team_id', 'is', null) : query.where('team_id', '=', where.teamId);
  const { mode } = where;
  if (mode === null) query = query.where('mode', 'is', null);
  else if (mode !== undefined)
    query = where.teamWide ? query.where((eb) => eb.or([eb('mode', '=', mode), eb('mode', 'is', null)])) : query.where('mode', '=', mode);
  if (filter.resource !== undefined) query = query.where('resource_id', '=', filter.resource);
  if (filter.actor !== undefined) query = query.where('actor_id', '=', filter.actor);
  if (filter.operation !== undefined) query = query.where('operation', '=', filter.operation);
  if (filter.since !== undefined) query = query.where('occurred_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('occurred_at', '<', filter.until);
  if (filter.before !== undefined) query = query.where(sql<boolean>`(occurred_at, id) < (${filter.before[0]}, ${filter.before[1]})`);
  return query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}
