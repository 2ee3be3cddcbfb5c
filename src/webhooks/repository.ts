// All SQL on webhooks, their deliveries and the delivery attempts.
import { claimDue as claimLeased } from '../db/leases.js';
import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import { isId } from '../ids.js';
import type { Selectable } from 'kysely';
import type { DeliveriesTable, DeliveryAttemptsTable, EventsTable, Mode, WebhooksTable } from '../db/schema.js';
import type { World } from '../world.js';
import { inChunks } from '../db/chunked.js';
import { inWorld } from '../db/in-world.js';

export type WebhookRow = WebhooksTable;
export type WebhookChanges = Partial<Omit<WebhookRow, 'id' | 'team_id' | 'mode' | 'created_at'>>;

export async function insertWebhook(db: Executor, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function findWebhook(db: Executor, world: World, id: string): Promise<WebhookRow | undefined> {
  // Not an id: matches nothing, and never reaches the engine (PostgreSQL refuses NUL in text).
  if (!isId('whk', id)) return undefined;
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).$call(inWorld(world)).executeTakeFirst();
}

export async function findWebhookById(db: Executor, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateWebhook(db: Executor, id: string, changes: WebhookChanges): Promise<void> {
  await db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
}

export async function deleteWebhook(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

/** Pending deliveries of a webhook that was deleted or disabled are dropped; the history stays. */
export async function cancelPending(db: Executor, webhookId: string): Promise<void> {
  await db.updateTable('deliveries').set({ status: 'canceled' }).where('webhook_id', '=', webhookId).where('status', '=', 'pending').execute();
}

/** The enabled webhooks of a world with their event filters (a world has a handful). */
export async function enabledWebhooks(db: Executor, world: World): Promise<{ id: string; events: string }[]> {
  return db.selectFrom('webhooks').select(['id', 'events']).$call(inWorld(world)).where('enabled', '=', 1).execute();
}

export async function insertEvents(db: Executor, rows: Omit<Selectable<EventsTable>, 'seq'>[]): Promise<void> {
  await inChunks(rows, (part) => db.insertInto('events').values(part).execute());
}

/** The team and mode of an event. */
export function findEventWorld(db: Executor, eventId: string): Promise<{ team_id: string; mode: Mode } | undefined> {
  return db.selectFrom('events').select(['team_id', 'mode']).where('id', '=', eventId).executeTakeFirst();
}

/** Deliveries waiting to be sent or retried, of every team and mode. */
export async function countPendingDeliveries(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertDeliveries(db: Executor, rows: Omit<DeliveriesTable, 'id' | 'earlier_attempts'>[]): Promise<void> {
  await inChunks(rows, (part) => db.insertInto('deliveries').values(part).execute());
}

export interface Claimed {
  id: number;
  attempts: number;
  earlier_attempts: number;
  event_id: string;
  payload: string;
  webhook_id: string;
  mode: Mode | null;
  url: string | null;
  enabled: number | null;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_until: number | null;
}

/**
 * Claims up to `limit` due deliveries by pushing their due time to `leaseUntil`:
 * a worker that dies holding them loses the claim when the lease runs out.
 * PostgreSQL: concurrent workers skip each other's rows; SQLite has one writer.
 */
export async function claimDue(db: Db, now: number, leaseUntil: number, limit: number): Promise<Claimed[]> {
  const ids = (await claimLeased<number | string>(db, 'deliveries', now, leaseUntil, limit)).map(Number);
  if (ids.length === 0) return [];
  return db.kysely
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select([
      'd.id',
      'd.attempts',
      'd.earlier_attempts',
      'd.event_id',
      'e.payload',
      'd.webhook_id',
      'w.mode',
      'w.url',
      'w.enabled',
      'w.secret_sealed',
      'w.previous_secret_sealed',
      'w.previous_secret_until',
    ])
    .where('d.id', 'in', ids)
    .execute();
}

export async function insertAttempts(db: Executor, rows: Omit<DeliveryAttemptsTable, 'id'>[]): Promise<void> {
  await inChunks(rows, (part) => db.insertInto('delivery_attempts').values(part).execute());
}

export async function markDelivered(db: Executor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('deliveries')
    .set({ status: 'delivered', attempts: sql`attempts + 1` })
    .where('id', 'in', ids)
    .execute();
}

/** A failed attempt: due again at `nextAt`, or finally `failed` when the schedule is spent. */
export async function markFailed(db: Executor, id: number, nextAt: number | null): Promise<void> {
  await db
    .updateTable('deliveries')
    .set(nextAt === null ? { status: 'failed', attempts: sql`attempts + 1` } : { next_attempt_at: nextAt, attempts: sql`attempts + 1` })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Claimed deliveries that must not be sent (webhook gone or disabled meanwhile). */
export async function markCanceled(db: Executor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('deliveries').set({ status: 'canceled' }).where('id', 'in', ids).execute();
}

// Both always lock the webhook row (even when nothing changes), so that a flush
// and a PATCH/DELETE of the webhook serialize on it before touching deliveries.
export async function clearFailing(db: Executor, webhookId: string): Promise<void> {
  await db.updateTable('webhooks').set({ failing_since: null }).where('id', '=', webhookId).execute();
}

/** Notes a failure; returns when the endpoint has been failing since. */
export async function noteFailing(db: Executor, webhookId: string, now: number): Promise<number | null> {
  const row = await db
    .updateTable('webhooks')
    .set({ failing_since: sql`coalesce(failing_since, ${now})` })
    .where('id', '=', webhookId)
    .returning('failing_since')
    .executeTakeFirst();
  return row?.failing_since ?? null;
}

export async function listAttempts(db: Executor, webhookId: string, limit: number): Promise<Selectable<DeliveryAttemptsTable>[]> {
  return db.selectFrom('delivery_attempts').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(limit).execute();
}

export type RequeueFilter = { eventId: string; webhookId?: string } | { webhookId: string; since: number };

/**
 * Makes the matching deliveries due now with a fresh retry schedule; their attempts so far
 * move to earlier_attempts, so the next attempt is numbered after them. By event: the event's
 * deliveries to enabled webhooks (to one webhook when given); by webhook: what it has not received.
 */
export async function requeue(db: Executor, filter: RequeueFilter, now: number): Promise<number> {
  let query = db.updateTable('deliveries').set({ status: 'pending', earlier_attempts: sql`earlier_attempts + attempts`, attempts: 0, next_attempt_at: now });
  if ('eventId' in filter) {
    query = query
      .where('event_id', '=', filter.eventId)
      .where('webhook_id', 'in', (eb) => eb.selectFrom('webhooks').select('webhooks.id').where('webhooks.enabled', '=', 1));
    if (filter.webhookId !== undefined) query = query.where('webhook_id', '=', filter.webhookId);
  } else {
    query = query.where('webhook_id', '=', filter.webhookId).where('created_at', '>=', filter.since).where('status', '!=', 'delivered');
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A world's webhooks, newest first (a world has a handful: no paging). */
export async function listWebhooks(db: Executor, world: World): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().$call(inWorld(world)).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** A delivery with the event it carries (type and tag; null once the event is gone). */
export interface DeliveryRow {
  id: number;
  event_id: string;
  webhook_id: string;
  status: DeliveriesTable['status'];
  attempts: number;
  earlier_attempts: number;
  next_attempt_at: number;
  created_at: number;
  type: string | null;
  tag_id: string | null;
}

const deliveries = (db: Executor, webhookId: string) =>
  db
    .selectFrom('deliveries as d')
    .leftJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.event_id', 'd.webhook_id', 'd.status', 'd.attempts', 'd.earlier_attempts', 'd.next_attempt_at', 'd.created_at', 'e.type', 'e.tag_id'])
    .where('d.webhook_id', '=', webhookId);

/** A webhook's deliveries, newest first, keyset-paged on the delivery's serial (index deliveries_webhook_id). */
export async function listDeliveries(
  db: Executor,
  webhookId: string,
  page: { status?: DeliveriesTable['status']; before?: number; limit: number },
): Promise<DeliveryRow[]> {
  let query = deliveries(db, webhookId);
  if (page.status !== undefined) query = query.where('d.status', '=', page.status);
  if (page.before !== undefined) query = query.where('d.id', '<', page.before);
  return query.orderBy('d.id', 'desc').limit(page.limit).execute();
}

export async function findDelivery(db: Executor, webhookId: string, eventId: string): Promise<DeliveryRow | undefined> {
  if (!isId('evt', eventId)) return undefined;
  return deliveries(db, webhookId).where('d.event_id', '=', eventId).executeTakeFirst();
}

/** The attempts of these deliveries, oldest first. */
export async function attemptsOf(db: Executor, deliveryIds: number[]): Promise<Selectable<DeliveryAttemptsTable>[]> {
  if (deliveryIds.length === 0) return [];
  return db.selectFrom('delivery_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('attempt').execute();
}

/** The event (type and tag) of each of these ids that still exists. */
export async function findEvents(db: Executor, eventIds: string[]): Promise<Map<string, { type: string; tag_id: string }>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('events')
    .select(['id', 'type', 'tag_id'])
    .where('id', 'in', [...new Set(eventIds)])
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}
