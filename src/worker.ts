// Background work (webhook delivery, expiry, …). Runs inside `tapproof serve`
// by default, or alone in `tapproof worker` processes.
import type { AppContext } from './context.js';
import { webhookDelivery } from './webhooks/worker.js';

export interface BackgroundJob {
  name: string;
  /** Starts the job; the returned function stops it and resolves when in-flight work is done. */
  start(ctx: AppContext): () => Promise<void>;
}

/** Feature modules add their jobs here. */
export const backgroundJobs: BackgroundJob[] = [webhookDelivery];

export function startBackgroundWork(ctx: AppContext): { stop(): Promise<void> } {
  const stops = backgroundJobs.map((job) => job.start(ctx));
  return { stop: async () => void (await Promise.all(stops.map((stop) => stop()))) };
}
