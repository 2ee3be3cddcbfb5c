// Operator commands: read a webhook's delivery attempts, resend events.
import { CliError, output, program, withContext } from '../cli.js';
import { isoMicros } from '../time.js';
import { findWebhookById, listAttempts, requeue } from './repository.js';

const webhooks = program.command('webhooks').description('inspect webhook deliveries and resend events');

webhooks
  .command('attempts <webhook_id>')
  .description('the latest delivery attempts of a webhook, newest first')
  .option('--limit <n>', 'how many attempts', (v) => Number(v), 50)
  .option('--json', 'machine-readable output')
  .action(async (webhookId: string, opts) => {
    if (!Number.isInteger(opts.limit) || opts.limit < 1) throw new CliError('--limit must be a positive whole number');
    const attempts = await withContext(async (ctx) => {
      if (!(await findWebhookById(ctx.db.kysely, webhookId))) throw new CliError(`no webhook ${webhookId}`);
      return listAttempts(ctx.db.kysely, webhookId, opts.limit);
    });
    const rows = attempts.map((a) => ({
      event_id: a.event_id,
      attempt: a.attempt,
      started_at: isoMicros(a.started_at),
      status: a.status_code,
      duration_ms: a.duration_ms,
      error: a.error,
    }));
    const human = rows.length === 0 ? 'no attempts yet' : rows.map((r) => `${r.started_at}  ${r.event_id}  #${r.attempt}  ${r.status ?? '-'}  ${r.duration_ms} ms${r.error ? `  ${r.error}` : ''}`).join('\n');
    output(opts.json, rows, human);
  });

webhooks
  .command('redeliver')
  .description('send one event again (--event), or every undelivered event of a webhook since a time (--webhook --since)')
  .option('--event <event_id>', 'resend this event to every enabled webhook it was for')
  .option('--webhook <webhook_id>', 'resend what this webhook has not received…')
  .option('--since <iso>', '…among events since this time (ISO 8601)')
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    const byEvent = opts.event !== undefined;
    if (byEvent === (opts.webhook !== undefined) || (opts.webhook !== undefined) !== (opts.since !== undefined)) {
      throw new CliError('give either --event EVENT_ID, or --webhook WEBHOOK_ID with --since ISO');
    }
    const since = byEvent ? 0 : Date.parse(opts.since);
    if (Number.isNaN(since)) throw new CliError(`--since is not an ISO 8601 time: ${opts.since}`);
    const count = await withContext(async (ctx) => {
      if (!byEvent) {
        const hook = await findWebhookById(ctx.db.kysely, opts.webhook);
        if (!hook) throw new CliError(`no webhook ${opts.webhook}`);
        if (hook.enabled !== 1) throw new CliError(`webhook ${opts.webhook} is disabled (${hook.disabled_reason ?? 'by its team'}); enable it first`);
      }
      const filter = byEvent ? { eventId: opts.event as string } : { webhookId: opts.webhook as string, since: since * 1000 };
      return requeue(ctx.db.kysely, filter, ctx.clock.nowMicros());
    });
    output(opts.json, { requeued: count }, `${count} deliver${count === 1 ? 'y' : 'ies'} queued again`);
  });
