// The tag lifecycle events (docs/api.md, webhooks): each carries the tag as the API
// shows it at the change, written to the outbox in the change's own transaction.
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import type { EventType } from '../webhooks/index.js';
import { recordEvents } from '../webhooks/index.js';
import { renderTag, type TagRow } from './serializer.js';

/**
 * Writes one event per tag, rendering the tag as the API shows it now: that
 * snapshot is the webhook's `data` (for tag.deleted, the last state). `at` is the
 * moment of the change (its timestamp); `extra` adds top-level payload members
 * (tag.configuration_failed carries its `reason`).
 */
export async function recordTagEvents(db: Executor, type: EventType, tags: TagRow[], at: number, extra: Record<string, unknown> = {}): Promise<void> {
  const events = tags.map((tag) => ({ teamId: tag.team_id, mode: tag.mode as Mode, tagId: tag.id, data: renderTag(tag), extra }));
  await recordEvents(db, type, events, at);
}
