// The outbox: events are rows written in the same transaction as the change they
// announce, so an event exists if and only if its change committed. Delivery
// (the worker) reads these rows later; nothing is sent from a request. The feature
// that announces a change renders its payload's `data` (src/tags/events.ts).
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { newId } from '../ids.js';
import { isoMicros } from '../time.js';
import { TEST_EVENT_TYPE, type EventType } from './event-types.js';
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

/**
 * A test event for one webhook (its world's), due now: the event row, stored without a tag (`tag_id` '', which
 * the API shows as null), and its one delivery. Returns the event id.
 */
export async function recordTestEvent(db: Executor, webhook: { id: string; team_id: string; mode: Mode }, at: number): Promise<string> {
  const id = newId('evt');
  const data = { webhook_id: webhook.id, message: 'A test event sent from tapproof: no tag changed.' };
  await webhooksRepo.insertEvents(db, [
    {
      id,
      team_id: webhook.team_id,
      mode: webhook.mode,
      type: TEST_EVENT_TYPE,
      tag_id: '',
      payload: JSON.stringify({ type: TEST_EVENT_TYPE, timestamp: isoMicros(at), data }),
      created_at: at,
    },
  ]);
  await webhooksRepo.insertDeliveries(db, [{ event_id: id, webhook_id: webhook.id, status: 'pending', attempts: 0, next_attempt_at: at, created_at: at }]);
  return id;
}
