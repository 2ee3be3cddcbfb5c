// The outbox: events are rows written in the same transaction as the change they
// announce, so an event exists if and only if its change committed. Delivery
// (the worker) reads these rows later; nothing is sent from a request. The feature
// that announces a change renders its payload's `data` (src/tags/events.ts).
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { newId } from '../ids.js';
import { isoMicros } from '../time.js';
import type { EventType } from './event-types.js';
import { enqueueDeliveries } from './fanout.js';
import * as webhooksRepo from './repository.js';

/** One event: the world it belongs to, the tag it is about, and its payload's `data` and extra top-level members. */
export interface OutboxEvent {
  teamId: string;
  mode: Mode;
  tagId: string;
  data: unknown;
  extra?: Record<string, unknown>;
}

/** Writes the events of `type` at `at` (their timestamp) and a pending delivery per subscribed webhook. */
export async function recordEvents(db: Executor, type: EventType, events: OutboxEvent[], at: number): Promise<void> {
  if (events.length === 0) return;
  const timestamp = isoMicros(at);
  const rows = events.map((event) => ({
    id: newId('evt'),
    team_id: event.teamId,
    mode: event.mode,
    type,
    tag_id: event.tagId,
    payload: JSON.stringify({ type, timestamp, data: event.data, ...event.extra }),
    created_at: at,
  }));
  await webhooksRepo.insertEvents(db, rows);
  // Normally one world per call; grouped so that a mixed call still reaches each world's webhooks.
  const worlds = new Map<string, { teamId: string; mode: Mode; ids: string[] }>();
  for (const row of rows) {
    const key = `${row.team_id} ${row.mode}`;
    if (!worlds.has(key)) worlds.set(key, { teamId: row.team_id, mode: row.mode, ids: [] });
    worlds.get(key)!.ids.push(row.id);
  }
  for (const world of worlds.values()) await enqueueDeliveries(db, world, type, world.ids, at);
}
