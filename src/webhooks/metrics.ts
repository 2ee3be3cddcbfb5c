// What the webhooks feature adds to GET /metrics: the delivery backlog, which every worker process shares,
// so only the database knows it (one COUNT per scrape).
import type { Kernel } from '../kernel.js';
import * as webhooksRepo from './repository.js';

export function registerWebhookMetrics({ db, metrics }: Pick<Kernel, 'db' | 'metrics'>): void {
  metrics.gaugeOnScrape(
    'tapproof_webhook_deliveries_pending',
    'Webhook deliveries waiting to be sent or retried (all processes, read from the database on scrape).',
    () => webhooksRepo.countPendingDeliveries(db.kysely),
  );
}
