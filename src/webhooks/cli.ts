// Operator commands: read a webhook's delivery attempts, resend events.
import { CliError, output, table } from '../cli-kit.js';
import type { WithContext } from '../cli-kit.js';
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import type { Command } from 'commander';
import { isoMicros } from '../time.js';
import { redeliverAsOperator } from './deliveries.js';
import * as webhooksRepo from './repository.js';
import { cliActor } from '../audit/index.js';

export function registerWebhookCommands(program: Command, withContext: WithContext<Kernel & MastersState>): void {
  const webhooks = program.command('webhooks').description('inspect webhook deliveries and resend events');

  const COLUMNS = ['started_at', 'event_id', 'event_type', 'tag_id', 'attempt', 'status', 'duration_ms', 'error'] as const;

  webhooks
    .command('attempts <webhook_id>')
    .description('the latest delivery attempts of a webhook, newest first')
    .option('--limit <n>', 'how many attempts', (v) => Number(v), 50)
    .option('--json', 'machine-readable output')
    .action(async (webhookId: string, opts) => {
      if (!Number.isInteger(opts.limit) || opts.limit < 1) throw new CliError('--limit must be a positive whole number');
      const { attempts, events } = await withContext(async (ctx) => {
        if (!(await webhooksRepo.findWebhookById(ctx.db.kysely, webhookId))) throw new CliError(`no webhook ${webhookId}`);
        const attempts = await webhooksRepo.listAttempts(ctx.db.kysely, webhookId, opts.limit);
        return {
          attempts,
          events: await webhooksRepo.findEvents(
            ctx.db.kysely,
            attempts.map((a) => a.event_id),
          ),
        };
      });
      const rows = attempts.map((a) => ({
        started_at: isoMicros(a.started_at),
        event_id: a.event_id,
        event_type: events.get(a.event_id)?.type ?? null,
        // A test event is about no tag (stored as '').
        tag_id: events.get(a.event_id)?.tag_id || null,
        attempt: a.attempt,
        status: a.status_code,
        duration_ms: a.duration_ms,
        error: a.error,
      }));
      const cells = rows.map((r) => [
        r.started_at,
        r.event_id,
        r.event_type ?? '-',
        r.tag_id ?? '-',
        `#${r.attempt}`,
        String(r.status ?? '-'),
        `${r.duration_ms} ms`,
        r.error ?? '',
      ]);
      output(opts.json, rows, rows.length === 0 ? 'no attempts yet' : table([[...COLUMNS], ...cells]));
    });

  webhooks
    .command('redeliver')
    .description('send one event again (--event), or every undelivered event of a webhook since a time (--webhook --since); attempts keep their numbering')
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
      const filter = byEvent ? { eventId: opts.event as string } : { webhookId: opts.webhook as string, since: since * 1000 };
      const count = await withContext((ctx) => redeliverAsOperator(ctx, filter, cliActor()));
      output(opts.json, { requeued: count }, `${count} deliver${count === 1 ? 'y' : 'ies'} queued again`);
    });
}
