// The outbox: lifecycle events are rows written in the same transaction as the
// change they announce, so an event exists if and only if its change committed.
// Delivery (webhooks) reads these rows later; nothing is sent from a request.
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { newId } from '../ids.js';
import { renderTag, type TagRow } from '../tags/serializer.js';
import { enqueueDeliveries } from '../webhooks/fanout.js';
import { isoMicros } from '../time.js';
import type { EventType } from './types.js';
import { inChunks } from '../db/chunked.js';

/**
 * Writes one event per tag, rendering the tag as the API shows it now: that
 * snapshot is the webhook's `data` (for tag.deleted, the last state). `at` is the
 * moment of the change (its timestamp); `extra` adds top-level payload members
 * (tag.configuration_failed carries its `reason`).
 */
export async function recordTagEvents(db: Executor, type: EventType, tags: TagRow[], at: number, extra: Record<string, unknown> = {}): Promise<void> {
  if (tags.length === 0) return;
  const timestamp = isoMicros(at);
  const rows = tags.map((tag) => ({
    id: newId('evt'),
    team_id: tag.team_id,
    mode: tag.mode as Mode,
    type,
    tag_id: tag.id,
    payload: JSON.stringify({ type, timestamp, data: renderTag(tag), ...extra }),
    created_at: at,
  }));
  await inChunks(rows, (part) => db.insertInto('events').values(part).execute());
  // Normally one world per call; grouped so that a mixed call still reaches each world's webhooks.
  const worlds = new Map<string, { teamId: string; mode: Mode; ids: string[] }>();
  for (const row of rows) {
    const key = `${row.team_id} ${row.mode}`;
    if (!worlds.has(key)) worlds.set(key, { teamId: row.team_id, mode: row.mode, ids: [] });
    worlds.get(key)!.ids.push(row.id);
  }
  for (const world of worlds.values()) await enqueueDeliveries(db, world, type, world.ids, at);
}
