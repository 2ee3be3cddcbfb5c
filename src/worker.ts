// Background work (webhook delivery, expiry, …). Runs inside `tapproof serve`
// by default, or alone in `tapproof worker` processes.
import type { AppContext } from './context.js';
import type { BackgroundJob } from './background-job.js';
import { webhookDelivery } from './webhooks/worker.js';
import { heldScanSummaries } from './verifications/flagged-events.js';
import { scanRetention } from './verifications/retention.js';
import { followGenerations } from './master-keys/masters.js';
import { caseMails } from './cases/index.js';
import { mailDelivery, type MailRenderers } from './mail/delivery.js';
import type { Kernel } from './kernel.js';
import { linkMails } from './users/index.js';

/** How each kind of mail is written: the features that own what it tells. */
export const mailRenderers = (ctx: Kernel): MailRenderers => ({ ...caseMails(ctx), ...linkMails(ctx) });

/** Feature modules add their jobs here. */
export const backgroundJobs: BackgroundJob<AppContext>[] = [webhookDelivery, scanRetention, heldScanSummaries, mailDelivery(mailRenderers)];

export function startBackgroundWork(ctx: AppContext): { stop(): Promise<void> } {
  // A worker follows other processes' master key rotations, rewraps and retirements like a server.
  const stops = [followGenerations(ctx), ...backgroundJobs.map((job) => job.start(ctx))];
  return { stop: async () => void (await Promise.all(stops.map((stop) => stop()))) };
}
