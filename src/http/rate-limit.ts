// One rate limiter for the whole process: a fixed one-minute window per client
// IP, kept in memory, or in Redis when several processes must share one budget.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { ApiError } from './errors.js';

export interface RateLimitOptions {
  perMinute: number;
  redisUrl: string | null;
  /** Paths answered without counting (health probes). */
  exempt: string[];
}

export async function installRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const redis = options.redisUrl
    ? new Redis(options.redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false })
    : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
  const noHeaders = {
    'x-ratelimit-limit': false,
    'x-ratelimit-remaining': false,
    'x-ratelimit-reset': false,
    'retry-after': false,
  } as const;
  await app.register(rateLimit, {
    // Not per route: a route-level hook would run after the scopes' own onRequest
    // hooks (auth, negotiation), so 401/406/415 answers would never be counted.
    // One root hook (below) counts every request first, before any other work.
    global: false,
    max: options.perMinute,
    timeWindow: 60_000,
    hook: 'onRequest',
    keyGenerator: (request) => request.ip,
    allowList: (request) => options.exempt.includes(request.url.split('?')[0]),
    nameSpace: 'tapproof-rl:',
    redis,
    // A broken Redis must not take the API down with it; requests pass uncounted.
    skipOnError: true,
    addHeaders: noHeaders,
    addHeadersOnExceeding: noHeaders,
    errorResponseBuilder: () => new ApiError('RateLimited'),
  });
  app.addHook('onRequest', app.rateLimit());
}
