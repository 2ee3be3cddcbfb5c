// Prometheus metrics (docs/operations.md). Each context (src/context.ts) gets its
// own Registry, never prom-client's global one: tests run several apps in one
// process, and each must count only its own traffic.
import { timingSafeEqual, createHash } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ConfigError } from './config.js';

export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly verifications: Counter<'reason'>;
  readonly signals: Counter<'signal'>;
  readonly deliveryAttempts: Counter<'outcome'>;
  readonly rateLimited: Counter;
  readonly pruned: Counter<'what'>;
  readonly scanBatchSize: Histogram;
  readonly scanCommitDuration: Histogram;
  readonly scanFsyncWait: Histogram;
  readonly scanBatches: Counter<'path'>;

  /**
   * A gauge read on every scrape (for a figure only the shared database knows, such as a backlog every worker
   * shares): the feature that owns the figure registers it, so this module reads no feature's tables.
   */
  gaugeOnScrape(name: string, help: string, read: () => Promise<number>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }

  constructor() {
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: 'tapproof_http_requests_total',
      help: 'HTTP requests answered, by route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'tapproof_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route pattern.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.verifications = new Counter({
      name: 'tapproof_verifications_total',
      help: 'Scans decided, by verdict reason (ok, replay, bad_cmac, ...).',
      labelNames: ['reason'],
      registers,
    });
    this.signals = new Counter({
      name: 'tapproof_verification_signals_total',
      help: 'Counterfeit signals raised on the scans this process decided, by signal (docs/signals.md).',
      labelNames: ['signal'],
      registers,
    });
    this.deliveryAttempts = new Counter({
      name: 'tapproof_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts made by this process, by outcome (ok, failed).',
      labelNames: ['outcome'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'tapproof_rate_limited_total',
      help: 'Requests refused with 429 by the rate limiter.',
      registers,
    });
    this.pruned = new Counter({
      name: 'tapproof_pruned_total',
      help: 'Rows deleted by scan retention in this process, by what (verifications, sessions).',
      labelNames: ['what'],
      registers,
    });
    // Observed by the main thread when a batch's commit returns, also when a
    // SQLite commit thread ran it: that thread has no registry anyone scrapes.
    this.scanBatchSize = new Histogram({
      name: 'tapproof_scan_batch_size',
      help: 'Scans decided and committed together by the group commit, per committed batch.',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
      registers,
    });
    this.scanCommitDuration = new Histogram({
      name: 'tapproof_scan_commit_duration_seconds',
      help: 'Time from handing a scan batch to the database (or the SQLite commit thread) to its commit.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.scanFsyncWait = new Histogram({
      name: 'tapproof_scan_fsync_wait_seconds',
      help: "SQLite commit thread: time from a scan batch's commit to the end of the WAL fsync that made it durable (part of the commit duration).",
      buckets: [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.scanBatches = new Counter({
      name: 'tapproof_scan_batches_total',
      help: 'PostgreSQL scan batches by how they were written: as_seen (one statement, on the chips as this process last committed them) or locked (BEGIN, row locks, write, COMMIT).',
      labelNames: ['path'],
      registers,
    });
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Counts every answered request by its route pattern (never the raw URL: ids would explode the label set). */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
}

/** GET /metrics, outside the API prefix; with a token configured, only `Authorization: Bearer <token>` reads it. */
export function metricsRoute(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  const expected = token === null ? null : digest(token);
  const allowed = (request: FastifyRequest): boolean => {
    if (expected === null) return true;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer (.+)$/.exec(header);
    // Compared as hashes so that the comparison is constant-time whatever the lengths.
    return match !== null && timingSafeEqual(digest(match[1]), expected);
  };
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!allowed(request)) return reply.code(401).header('www-authenticate', 'Bearer').type('text/plain; charset=utf-8').send('metrics token required\n');
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

/**
 * `tapproof worker`'s own GET /metrics (TAPPROOF_WORKER_METRICS_PORT): its
 * delivery attempts are counted in its registry, which no server can see.
 * Resolves with the address and a function that closes the listener.
 */
export async function startMetricsServer(
  metrics: Metrics,
  token: string | null,
  host: string,
  port: number,
): Promise<{ address: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  metricsRoute(app, metrics, token);
  try {
    const address = await app.listen({ host, port });
    return { address, close: () => app.close() };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new ConfigError(`TAPPROOF_WORKER_METRICS_PORT ${port} is already in use on HOST ${host}: stop the other process or set another port`);
    throw error;
  }
}
