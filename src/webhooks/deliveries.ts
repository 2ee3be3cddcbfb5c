// A webhook's deliveries read back and sent again: the rules both the API and the
// operator CLI follow (docs/read-api.md). SQL is in repository.ts.
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import { DomainError, refusal } from '../errors.js';
import { pageOf } from '../http/query.js';
import type { Actor, Caller, World } from '../world.js';
import { recordAudit } from '../audit/index.js';
import { inTransaction } from '../db/transaction.js';
import * as webhooksRepo from './repository.js';
import { recordTestEvent } from './outbox.js';
import { getWebhook } from './service.js';

export interface DeliveryView {
  delivery: webhooksRepo.DeliveryRow;
  attempts: Awaited<ReturnType<typeof webhooksRepo.attemptsOf>>;
}

async function withAttempts(ctx: Kernel & MastersState, rows: webhooksRepo.DeliveryRow[]): Promise<DeliveryView[]> {
  const attempts = await webhooksRepo.attemptsOf(
    ctx.db.kysely,
    rows.map((r) => r.id),
  );
  return rows.map((delivery) => ({ delivery, attempts: attempts.filter((a) => Number(a.delivery_id) === delivery.id) }));
}

export async function listDeliveries(
  ctx: Kernel & MastersState,
  world: World,
  webhookId: string,
  page: { status?: webhooksRepo.DeliveryRow['status']; before?: number; size: number },
) {
  await getWebhook(ctx, world, webhookId);
  const { rows, more } = pageOf(await webhooksRepo.listDeliveries(ctx.db.kysely, webhookId, { ...page, limit: page.size + 1 }), page.size);
  const last = rows.at(-1);
  return { deliveries: await withAttempts(ctx, rows), next: more && last ? [last.id] : null };
}

/** Sends a test event to one enabled webhook of the world, now; answers its delivery, pending. */
export async function sendTestEvent(ctx: Kernel & MastersState, caller: Caller, webhookId: string): Promise<DeliveryView> {
  const hook = await getWebhook(ctx, caller, webhookId);
  if (hook.enabled !== 1) throw new DomainError('WebhookDisabled');
  // Read back before the commit: once committed, a worker may claim the delivery at once, and the answer
  // would show its lease instead of the delivery as it was made, due now.
  const delivery = await inTransaction(ctx.db, async (trx) => {
    const at = ctx.clock.nowMicros();
    const id = await recordTestEvent(trx, hook, at);
    await recordAudit(trx, caller, at, [{ operation: 'webhook.test', resourceId: webhookId, changes: { event_id: id } }]);
    return webhooksRepo.findDelivery(trx, webhookId, id);
  });
  if (!delivery) throw new DomainError('NotFound');
  return (await withAttempts(ctx, [delivery]))[0]!;
}

/** Sends one event to one webhook of the world again, continuing its attempt numbers. */
export async function redeliver(ctx: Kernel & MastersState, caller: Caller, webhookId: string, eventId: string): Promise<DeliveryView> {
  const hook = await getWebhook(ctx, caller, webhookId);
  if (!(await webhooksRepo.findDelivery(ctx.db.kysely, webhookId, eventId))) throw new DomainError('NotFound');
  if (hook.enabled !== 1) throw new DomainError('WebhookDisabled');
  // As for a test event: the delivery as requeued, due now, not as a worker may already have claimed it.
  const delivery = await inTransaction(ctx.db, async (trx) => {
    const at = ctx.clock.nowMicros();
    await webhooksRepo.requeue(trx, { eventId, webhookId }, at);
    await recordAudit(trx, caller, at, [{ operation: 'webhook.redeliver', resourceId: webhookId, changes: { event_id: eventId } }]);
    return webhooksRepo.findDelivery(trx, webhookId, eventId);
  });
  if (!delivery) throw new DomainError('NotFound');
  return (await withAttempts(ctx, [delivery]))[0]!;
}

/**
 * The operator's form, across teams: an event to every enabled webhook it was for, or what
 * one webhook has not received since a time. Returns how many deliveries are due again.
 */
export async function redeliverAsOperator(ctx: Kernel & MastersState, filter: webhooksRepo.RequeueFilter, actor: Actor): Promise<number> {
  let world: World | undefined;
  if (!('eventId' in filter)) {
    const hook = await webhooksRepo.findWebhookById(ctx.db.kysely, filter.webhookId);
    if (!hook) throw refusal(`no webhook ${filter.webhookId}`);
    if (hook.enabled !== 1) throw refusal(`webhook ${filter.webhookId} is disabled (${hook.disabled_reason ?? 'by its team'}); enable it first`);
    world = { teamId: hook.team_id, mode: hook.mode };
  } else {
    const event = await webhooksRepo.findEventWorld(ctx.db.kysely, filter.eventId);
    if (event) world = { teamId: event.team_id, mode: event.mode };
  }
  return inTransaction(ctx.db, async (trx) => {
    const at = ctx.clock.nowMicros();
    const count = await webhooksRepo.requeue(trx, filter, at);
    if ('eventId' in filter && count === 0) throw refusal(`no delivery of event ${filter.eventId} to an enabled webhook`);
    const changes = 'eventId' in filter ? { event_id: filter.eventId, requeued: count } : { since: filter.since, requeued: count };
    await recordAudit(trx, { teamId: world?.teamId ?? null, mode: world?.mode ?? null, actor }, at, [
      { operation: 'webhook.redeliver', resourceId: 'eventId' in filter ? null : filter.webhookId, changes },
    ]);
    return count;
  });
}
