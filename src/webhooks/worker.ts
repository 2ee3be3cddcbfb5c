// The delivery worker: claims due deliveries in bounded batches, sends them
// concurrently over keep-alive connections, and records every attempt. Outcomes
// are written in small batched transactions; a crash between sending and
// recording only means the claim's lease runs out and the event is sent again
// (at-least-once: duplicates are possible, losses are not).
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import type { Executor } from '../db/database.js';
import { inTransaction } from '../db/transaction.js';
import type { Mode } from '../db/schema.js';
import type { Sealer } from '../secrets/index.js';
import type { BackgroundJob } from '../background-job.js';
import * as webhooksRepo from './repository.js';
import type { Claimed } from './repository.js';
import { createSender, type AttemptResult, type Sender } from './sender.js';
import { secretSealer } from './service.js';
import { sign } from './signature.js';

/** Delay before attempt n+1 after n attempts (docs/decisions.md §6); after the last one the delivery has failed. */
export const RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];
const DISABLE_AFTER_MICROS = 5 * 24 * 3600 * 1_000_000;
const JITTER = 0.1;

/** When a delivery that has now failed `attempts` times is due again, or null when its schedule is spent. */
export function nextAttemptAt(attempts: number, now: number, scale: number, random = Math.random): number | null {
  if (attempts >= RETRY_SCHEDULE_SECONDS.length) return null;
  const seconds = RETRY_SCHEDULE_SECONDS[attempts] * scale * (1 - JITTER + 2 * JITTER * random());
  return now + Math.round(seconds * 1_000_000);
}

export interface WorkerOptions {
  /** Most deliveries claimed in one statement. */
  batch?: number;
  /** Most requests in flight at once. */
  maxInFlight?: number;
  /** Pause between polls when nothing was due. */
  idleMs?: number;
}

interface Outcome {
  delivery: Claimed;
  startedAt: number;
  result: AttemptResult;
}

export class DeliveryWorker {
  private readonly batch: number;
  private readonly maxInFlight: number;
  private readonly idleMs: number;
  private readonly sender: Sender;
  private readonly log;
  private inFlight = 0;
  private outcomes: Outcome[] = [];
  private canceled: number[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private readonly sealers = new Map<Mode, Sealer>();
  private readonly secrets = new Map<string, string>();

  constructor(
    private readonly ctx: Kernel & MastersState,
    options: WorkerOptions = {},
  ) {
    this.batch = options.batch ?? 200;
    this.maxInFlight = options.maxInFlight ?? 256;
    this.idleMs = options.idleMs ?? 50;
    this.sender = createSender({ allowPrivate: ctx.config.allowPrivateWebhooks, timeoutMs: ctx.config.webhookTimeoutMs, maxSockets: this.maxInFlight });
    this.log = ctx.log.child({ job: 'webhooks' });
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.sender.close();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).then(() => void (this.wake = null));
  }

  private async run(): Promise<void> {
    const leaseMicros = 2 * this.ctx.config.webhookTimeoutMs * 1000;
    while (!this.stopping) {
      const room = Math.min(this.batch, this.maxInFlight - this.inFlight);
      if (room < Math.min(this.batch, this.maxInFlight) / 4) {
        await this.sleep(this.idleMs); // woken when requests finish
        continue;
      }
      let claimed: Claimed[] = [];
      try {
        const now = this.ctx.clock.nowMicros();
        claimed = await webhooksRepo.claimDue(this.ctx.db, now, now + leaseMicros, room);
        for (const mode of new Set(claimed.map((d) => d.mode))) {
          if (mode && !this.sealers.has(mode)) this.sealers.set(mode, await secretSealer(this.ctx, mode));
        }
      } catch (error) {
        this.log.error({ err: error }, 'claiming deliveries failed; retrying');
        await this.sleep(this.idleMs * 20);
        continue;
      }
      for (const delivery of claimed) this.dispatch(delivery);
      // A full batch means more is probably due: claim again at once.
      if (claimed.length < room) await this.sleep(this.idleMs);
    }
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 10));
    await this.flush();
  }

  private secret(mode: Mode, sealed: string): string {
    let plain = this.secrets.get(sealed);
    if (plain === undefined) {
      if (this.secrets.size > 10_000) this.secrets.clear();
      plain = this.sealers.get(mode)!.open(sealed);
      this.secrets.set(sealed, plain);
    }
    return plain;
  }

  private dispatch(delivery: Claimed): void {
    if (delivery.url === null || delivery.enabled !== 1 || delivery.secret_sealed === null) {
      this.canceled.push(delivery.id);
      this.scheduleFlush();
      return;
    }
    const startedAt = this.ctx.clock.nowMicros();
    let headers: Record<string, string>;
    try {
      headers = this.sign(delivery, startedAt);
    } catch (error) {
      // A secret that cannot be opened (master key changed) is an operator problem: record it, retry later.
      this.outcomes.push({
        delivery,
        startedAt,
        result: { statusCode: null, durationMs: 0, error: `cannot sign: ${(error as Error).message}`, responseExcerpt: null },
      });
      this.countAttempt(false);
      this.scheduleFlush();
      return;
    }
    this.inFlight++;
    void this.sender.send(delivery.url, headers, delivery.payload).then((result) => {
      this.inFlight--;
      this.outcomes.push({ delivery, startedAt, result });
      this.countAttempt(result.error === null);
      this.scheduleFlush();
      this.wake?.();
    });
  }

  /** Attempts as this process makes them; the recorded history stays in delivery_attempts. */
  private countAttempt(ok: boolean): void {
    this.ctx.metrics.deliveryAttempts.inc({ outcome: ok ? 'ok' : 'failed' });
  }

  private sign(delivery: Claimed, at: number): Record<string, string> {
    const mode = delivery.mode!;
    const secrets = [this.secret(mode, delivery.secret_sealed!)];
    if (delivery.previous_secret_sealed && (delivery.previous_secret_until ?? 0) > at) secrets.push(this.secret(mode, delivery.previous_secret_sealed));
    const timestamp = Math.floor(at / 1_000_000);
    return {
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(secrets, delivery.event_id, timestamp, delivery.payload),
    };
  }

  private scheduleFlush(): void {
    if (this.outcomes.length + this.canceled.length >= this.batch) {
      void this.flush();
    } else {
      this.flushTimer ??= setTimeout(() => void this.flush(), 20);
    }
  }

  /** Records the buffered outcomes in one transaction; flushes run one after another. */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const outcomes = this.outcomes.splice(0);
    const canceled = this.canceled.splice(0);
    if (outcomes.length === 0 && canceled.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() =>
      this.record(outcomes, canceled).catch((error) => {
        // The claims expire and these deliveries are attempted again.
        this.log.error({ err: error, count: outcomes.length }, 'recording delivery outcomes failed');
      }),
    );
    return this.flushing;
  }

  private async record(outcomes: Outcome[], canceled: number[]): Promise<void> {
    await inTransaction(this.ctx.db, (trx) => this.recordIn(trx, outcomes, canceled), { attempts: 3 });
  }

  private async recordIn(trx: Executor, outcomes: Outcome[], canceled: number[]): Promise<void> {
    const now = this.ctx.clock.nowMicros();
    const failed = outcomes.filter((o) => o.result.error !== null);
    const ok = outcomes.filter((o) => o.result.error === null);
    await webhooksRepo.insertAttempts(
      trx,
      outcomes.map(({ delivery, startedAt, result }) => ({
        delivery_id: delivery.id,
        webhook_id: delivery.webhook_id,
        event_id: delivery.event_id,
        attempt: delivery.earlier_attempts + delivery.attempts + 1,
        started_at: startedAt,
        duration_ms: result.durationMs,
        status_code: result.statusCode,
        error: result.error,
        response_excerpt: result.responseExcerpt,
      })),
    );

    // Webhook rows first, in id order, then deliveries: PATCH and DELETE of a
    // webhook lock in the same order, so the two never deadlock.
    const succeeded = new Set(ok.map((o) => o.delivery.webhook_id));
    const gone = new Set(failed.filter((o) => o.result.statusCode === 410).map((o) => o.delivery.webhook_id));
    const disabled = new Set<string>();
    for (const id of [...new Set([...succeeded, ...failed.map((o) => o.delivery.webhook_id)])].sort()) {
      let reason: 'gone' | 'failing' | null = gone.has(id) ? 'gone' : null;
      if (!reason && succeeded.has(id)) {
        await webhooksRepo.clearFailing(trx, id);
      } else if (!reason) {
        const since = await webhooksRepo.noteFailing(trx, id, now);
        if (since !== null && now - since >= DISABLE_AFTER_MICROS) reason = 'failing';
      }
      if (reason) {
        disabled.add(id);
        await webhooksRepo.updateWebhook(trx, id, { enabled: 0, disabled_reason: reason, updated_at: now });
        this.log.warn({ webhook: id, reason }, 'webhook disabled');
      }
    }

    await webhooksRepo.markCanceled(trx, canceled);
    await webhooksRepo.markDelivered(
      trx,
      ok.map((o) => o.delivery.id),
    );
    const scale = this.ctx.config.webhookRetryScale;
    for (const { delivery, result } of failed) {
      await webhooksRepo.markFailed(trx, delivery.id, result.statusCode === 410 ? null : nextAttemptAt(delivery.attempts + 1, now, scale));
    }
    for (const id of disabled) await webhooksRepo.cancelPending(trx, id);
  }
}

export const webhookDelivery: BackgroundJob<Kernel & MastersState> = {
  name: 'webhook-delivery',
  start(ctx) {
    const worker = new DeliveryWorker(ctx);
    worker.start();
    return () => worker.stop();
  },
};
