// One rate limiter for the whole process: a fixed one-minute window per client
// IP, kept in memory, or in Redis when several processes must share one budget.
//
// While Redis is unreachable the limiter counts in this process (each process
// then enforces the full budget on its own) instead of failing open or waiting:
// every Redis command is bounded (no offline queue, short timeouts), the
// connection is retried in the background, and the log gets one line when Redis
// goes down and one when it is back (docs/operations.md, "Redis").
import { createRequire } from 'node:module';
import rateLimit from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { DomainError } from '../errors.js';

export interface RateLimitOptions {
  perMinute: number;
  redisUrl: string | null;
  /** This deployment's part of a shared Redis: its keys are `<prefix>-rl:<key>`. */
  redisPrefix: string;
  /** Paths answered without counting (health probes). */
  exempt: string[];
  /** Called once per refused request (the metrics counter). */
  onRejected?: () => void;
}

/** What /readyz reports about the shared limiter: null when no Redis is configured. */
export interface RateLimitState {
  redis(): 'ok' | 'down' | null;
}

// Redis answers in well under a millisecond on a healthy network; these only
// bound how long a request can wait for a Redis that is going away.
export const REDIS_CONNECT_TIMEOUT_MS = 1000;
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
/** After a failed command, requests skip Redis this long (a hung Redis costs one slow request, not all). */
const REDIS_BACKOFF_MS = 1000;
const RECONNECT_MAX_MS = 2000;

type Incr = (key: string, cb: (err: Error | null, res: { current: number; ttl: number } | null) => void, timeWindow: number, max: number) => void;
interface Store {
  incr: Incr;
  child(routeOptions: unknown): Store;
}
const require = createRequire(import.meta.url);
const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => Store = require('@fastify/rate-limit/store/LocalStore');
const RedisStore: new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key: string,
) => Store = require('@fastify/rate-limit/store/RedisStore');

/** Redis with its connection state followed and logged once per change. */
function watchedRedis(url: string, log: FastifyBaseLogger) {
  const redis = new Redis(url, {
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    // Keep trying in the background, never giving up: Redis may come back at any time.
    retryStrategy: (times) => Math.min(100 * times, RECONNECT_MAX_MS),
  });
  let state: 'connecting' | 'up' | 'down' = 'connecting';
  let skipUntil = 0;
  const down = (reason: string) => {
    if (state === 'down') return;
    const first = state === 'connecting';
    state = 'down';
    // The reason is a code or short message; the URL (it may carry a password) is never logged.
    log.warn(
      { reason },
      first
        ? 'redis unavailable: rate limits are counted in this process until it answers'
        : 'redis down: rate limits are counted in this process until it is back',
    );
  };
  redis.on('ready', () => {
    if (state === 'down') log.info('redis up again: rate limits are shared again');
    else if (state === 'connecting') log.info('redis connected: rate limits are shared');
    state = 'up';
    skipUntil = 0;
  });
  // Without a listener ioredis prints every failed reconnect with a stack trace.
  redis.on('error', (error: Error & { code?: string }) => down(error.code ?? error.message));
  redis.on('close', () => {
    if (state === 'up') down('connection closed');
  });
  // Start listening only once Redis has answered or failed (at most the connect
  // timeout): otherwise the first requests after start would be counted locally.
  const settled = new Promise<void>((resolve) => {
    if (redis.status === 'ready') return resolve();
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, REDIS_CONNECT_TIMEOUT_MS + 200);
    redis.once('ready', done);
    redis.once('error', done);
  });
  return {
    redis,
    settled,
    usable: () => redis.status === 'ready' && Date.now() >= skipUntil,
    failed: (error: Error & { code?: string }) => {
      skipUntil = Date.now() + REDIS_BACKOFF_MS;
      down(error.code ?? error.message);
    },
    state: () => (state === 'up' && redis.status === 'ready' && Date.now() >= skipUntil ? ('ok' as const) : ('down' as const)),
  };
}

/**
 * A route's own budget per client IP and hour (an `onRequest` hook of the route), counted by this
 * limiter's store under its own key, on top of the per-minute budget every request spends.
 */
export function hourlyBudget(app: FastifyInstance, name: string, max: number) {
  const count = app.createRateLimit({ max, timeWindow: 3_600_000, keyGenerator: (request: FastifyRequest) => `${name}:${request.ip}` });
  return async (request: FastifyRequest) => {
    const counted = await count(request);
    if (!counted.isAllowed && counted.isExceeded) throw new DomainError('RateLimited');
  };
}

export async function installRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<RateLimitState> {
  const watched = options.redisUrl ? watchedRedis(options.redisUrl, app.log) : null;
  if (watched) app.addHook('onClose', async () => void (await watched.redis.quit().catch(() => watched.redis.disconnect())));
  await watched?.settled;

  const local = new LocalStore(false, false, 10_000);
  // The store the plugin instantiates: Redis while it answers, this process's counts otherwise.
  class SharedOrLocalStore implements Store {
    private readonly shared = watched ? new RedisStore(false, false, watched.redis, `${options.redisPrefix}-rl:`) : null;
    incr: Incr = (key, cb, timeWindow, max) => {
      if (!this.shared || !watched!.usable()) return local.incr(key, cb, timeWindow, max);
      this.shared.incr(
        key,
        (err, res) => {
          if (!err) return cb(null, res);
          watched!.failed(err);
          local.incr(key, cb, timeWindow, max);
        },
        timeWindow,
        max,
      );
    };
    child(): Store {
      return this;
    }
  }

  const noHeaders = {
    'x-ratelimit-limit': false,
    'x-ratelimit-remaining': false,
    'x-ratelimit-reset': false,
    'retry-after': false,
  } as const;
  const exempt = new Set(options.exempt);
  const isExempt = (request: FastifyRequest): boolean => {
    const url = request.url;
    const query = url.indexOf('?');
    return exempt.has(query < 0 ? url : url.slice(0, query));
  };
  await app.register(rateLimit, {
    // Not per route: a route-level hook would run after the scopes' own onRequest
    // hooks (auth, negotiation), so 401/406/415 answers would never be counted.
    // One root hook (below) counts every request first, before any other work.
    global: false,
    max: options.perMinute,
    timeWindow: 60_000,
    hook: 'onRequest',
    keyGenerator: (request) => request.ip,
    allowList: isExempt,
    store: SharedOrLocalStore as never,
    // The store never fails (it falls back to local counts); this is only a last guard.
    skipOnError: true,
    addHeaders: noHeaders,
    addHeadersOnExceeding: noHeaders,
    errorResponseBuilder: () => {
      options.onRejected?.();
      return new DomainError('RateLimited');
    },
  });
  // An exempt path is let through in the same turn: the plugin's own check of it costs a chain of promises.
  const limit = app.rateLimit();
  app.addHook('onRequest', function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
    if (isExempt(request)) return done();
    (limit.call(this, request, reply) as Promise<void>).then(() => done(), done);
  });
  return { redis: () => (watched ? watched.state() : null) };
}
