// Fan-out of events to the webhooks subscribed at the time of the event. It runs
// inside the transaction recording the events (src/webhooks/outbox.ts), so an
// event exists together with its deliveries or not at all, and the worker never
// has to find its way through the outbox by sequence numbers.
import type { Executor } from '../db/database.js';
import type { EventType } from './event-types.js';
import * as webhooksRepo from './repository.js';
import type { World } from '../world.js';

/** Creates one pending delivery per (event, subscribed enabled webhook). */
export async function enqueueDeliveries(trx: Executor, world: World, type: EventType, eventIds: string[], at: number): Promise<void> {
  const hooks = (await webhooksRepo.enabledWebhooks(trx, world)).filter((h) => (JSON.parse(h.events) as string[]).includes(type));
  if (hooks.length === 0) return;
  await webhooksRepo.insertDeliveries(
    trx,
    eventIds.flatMap((eventId) =>
      hooks.map((h) => ({ event_id: eventId, webhook_id: h.id, status: 'pending' as const, attempts: 0, next_attempt_at: at, created_at: at })),
    ),
  );
}
