// The rules of the webhook resource (docs/decisions.md §6).
import type { Kernel } from '../kernel.js';
import { TAG_EVENT_TYPES } from './event-types.js';
import { DomainError, problem, validationFailed, type FieldProblem } from '../errors.js';
import { newId } from '../ids.js';
import type { MastersState } from '../master-keys/index.js';
import type { Sealer } from '../secrets/index.js';
import { fieldProblems } from '../http/field-rules.js';
import { ATTRIBUTES, CREATABLE, MUTABLE } from './rules.js';
import * as webhooksRepo from './repository.js';
import type { WebhookChanges, WebhookRow } from './repository.js';
import { inTransaction } from '../db/transaction.js';
import type { Caller, World } from '../world.js';
import { recordAudit } from '../audit/index.js';
import { newSecret } from './signature.js';

const SECRET_PURPOSE = 'webhook-secret';

/** Webhook secrets are sealed under the current master generation of the webhook's mode, and opened under whichever live one sealed them. */
export function secretSealer(ctx: Kernel & MastersState, mode: World['mode']): Promise<Sealer> {
  return ctx.masters.sealer(mode, SECRET_PURPOSE);
}
/** After a rotation the old secret keeps signing beside the new one this long. */
const ROTATION_OVERLAP_MICROS = 24 * 3600 * 1_000_000;

/** A webhook as the API shows it; `secret` only right after creation or rotation. */
export interface WebhookView {
  row: WebhookRow;
  secret?: string;
}

function checkAttributes(attributes: Record<string, unknown>, allowed: readonly string[], ctx: Kernel & MastersState): void {
  const errors: FieldProblem[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (!allowed.includes(name)) errors.push(problem(name, `${name} cannot be set by this operation`));
    else errors.push(...fieldProblems(name, ATTRIBUTES[name as keyof typeof ATTRIBUTES], value, ctx.config));
  }
  if (errors.length > 0) throw validationFailed(errors);
}

export async function createWebhook(ctx: Kernel & MastersState, world: Caller, attributes: Record<string, unknown>): Promise<WebhookView> {
  checkAttributes(attributes, CREATABLE, ctx);
  const secret = newSecret();
  const box = await secretSealer(ctx, world.mode);
  const at = ctx.clock.nowMicros();
  const row: WebhookRow = {
    id: newId('whk'),
    team_id: world.teamId,
    mode: world.mode,
    url: attributes.url as string,
    events: JSON.stringify((attributes.events as string[] | undefined) ?? TAG_EVENT_TYPES),
    enabled: 1,
    disabled_reason: null,
    secret_sealed: box.seal(secret),
    previous_secret_sealed: null,
    previous_secret_until: null,
    failing_since: null,
    created_at: at,
    updated_at: at,
  };
  await inTransaction(ctx.db, async (trx) => {
    await webhooksRepo.insertWebhook(trx, row);
    await recordAudit(trx, world, at, [{ operation: 'webhook.create', resourceId: row.id, changes: { url: row.url, events: JSON.parse(row.events) } }]);
  });
  return { row, secret };
}

export async function listWebhooks(ctx: Kernel & MastersState, world: World): Promise<WebhookRow[]> {
  return webhooksRepo.listWebhooks(ctx.db.kysely, world);
}

export async function getWebhook(ctx: Kernel & MastersState, world: World, id: string): Promise<WebhookRow> {
  const row = await webhooksRepo.findWebhook(ctx.db.kysely, world, id);
  if (!row) throw new DomainError('NotFound');
  return row;
}

export async function updateWebhook(ctx: Kernel & MastersState, world: Caller, id: string, attributes: Record<string, unknown>): Promise<WebhookView> {
  checkAttributes(attributes, MUTABLE, ctx);
  const box = attributes.rotate_secret === true ? await secretSealer(ctx, world.mode) : null;
  return inTransaction(ctx.db, async (trx) => {
    const row = await webhooksRepo.findWebhook(trx, world, id);
    if (!row) throw new DomainError('NotFound');
    const at = ctx.clock.nowMicros();
    const changes: WebhookChanges = { updated_at: at };
    if ('url' in attributes) changes.url = attributes.url as string;
    if ('events' in attributes) changes.events = JSON.stringify(attributes.events);
    if ('enabled' in attributes) {
      changes.enabled = attributes.enabled ? 1 : 0;
      // Enabling again forgets why the platform disabled it and the failure streak.
      if (attributes.enabled) Object.assign(changes, { disabled_reason: null, failing_since: null });
    }
    let secret: string | undefined;
    if (box) {
      secret = newSecret();
      Object.assign(changes, {
        secret_sealed: box.seal(secret),
        previous_secret_sealed: row.secret_sealed,
        previous_secret_until: at + ROTATION_OVERLAP_MICROS,
      });
    }
    await webhooksRepo.updateWebhook(trx, id, changes);
    if (changes.enabled === 0) await webhooksRepo.cancelPending(trx, id);
    await recordAudit(trx, world, at, [{ operation: 'webhook.update', resourceId: id, changes: auditedChanges(row, changes) }]);
    return { row: { ...row, ...changes }, secret };
  });
}

export async function deleteWebhook(ctx: Kernel & MastersState, world: Caller, id: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await webhooksRepo.findWebhook(trx, world, id);
    if (!row) throw new DomainError('NotFound');
    await webhooksRepo.deleteWebhook(trx, id);
    await webhooksRepo.cancelPending(trx, id);
    await recordAudit(trx, world, ctx.clock.nowMicros(), [{ operation: 'webhook.delete', resourceId: id, changes: { url: row.url } }]);
  });
}

/** What an update set, as the audit log keeps it: the url, events and enabled as { from, to }; a new secret only as the fact of it. */
function auditedChanges(before: WebhookRow, changes: WebhookChanges): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (changes.url !== undefined && changes.url !== before.url) out.url = { from: before.url, to: changes.url };
  if (changes.events !== undefined && changes.events !== before.events) out.events = { from: JSON.parse(before.events), to: JSON.parse(changes.events) };
  if (changes.enabled !== undefined && changes.enabled !== before.enabled) out.enabled = { from: before.enabled === 1, to: changes.enabled === 1 };
  if (changes.secret_sealed !== undefined) out.secret = 'rotated';
  return out;
}
