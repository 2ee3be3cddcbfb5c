// Background work (webhook delivery, expiry, …). Runs inside `tapproof serve`
// by default, or alone in `tapproof worker` processes.
import type { AppContext } from './context.js';
import type { BackgroundJob } from './background-job.js';
import { webhookDelivery } from './webhooks/worker.js';

/** Feature modules add their jobs here. */
export const backgroundJobs: BackgroundJob<AppContext>[] = [webhookDelivery];

export function startBackgroundWork(ctx: AppContext): { stop(): Promise<void> } {
  const stops = backgroundJobs.map((job) => job.start(ctx));
  return { stop: async () => void (await Promise.all(stops.map((stop) => stop()))) };
}
