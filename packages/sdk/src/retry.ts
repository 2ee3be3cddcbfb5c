// When a request is sent again and after how long: a wait that never falls below a floor
// and doubles on every retry, a cap on retries and one on the total wait for the rate limit.
// A server's hint only lengthens the wait: a `Retry-After: 0` from a server or a proxy must not
// turn the client into a flood.

export interface RetryOptions {
  /** Retries of one request, whatever the cause; 0 sends it once (default 6). */
  maxRetries?: number;
  /** Longest total wait for the rate limit before a 429 is thrown (default 5 minutes). */
  rateLimitWaitMs?: number;
  /** Attempts of an idempotent request that got no answer or a 502/503/504 (default 3). */
  attempts?: number;
  /** First wait, never below 100 ms; it doubles per retry up to 30 s (default 1 s). */
  baseDelayMs?: number;
}

/** The shortest wait before any retry, whatever the server says. */
export const MIN_DELAY_MS = 100;
/** The backoff stops doubling here; a server's longer hint is still honoured. */
const MAX_BACKOFF_MS = 30_000;

/**
 * How long the server asks us to wait: `Retry-After` (seconds or a date), else the IETF
 * `RateLimit-Reset` / `X-RateLimit-Reset` seconds. The tapproof server sends none of them on its
 * plain-text 429 (its window is a fixed minute), so the backoff is what usually applies.
 */
export function serverWaitMs(headers: Headers, now = Date.now()): number | null {
  const after = headers.get('retry-after');
  if (after !== null) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  for (const name of ['ratelimit-reset', 'x-ratelimit-reset']) {
    const seconds = Number(headers.get(name) ?? NaN);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  }
  return null;
}

function count(value: number | undefined, fallback: number, name: string, least: number): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < least) throw new TypeError(`retry.${name} must be an integer of at least ${least}`);
  return n;
}

function duration(value: number | undefined, fallback: number, name: string): number {
  const ms = value ?? fallback;
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) throw new TypeError(`retry.${name} must be a number of milliseconds`);
  return ms;
}

export class RetryPolicy {
  readonly maxRetries: number;
  readonly rateLimitWaitMs: number;
  readonly attempts: number;
  private readonly baseDelayMs: number;

  constructor(options: RetryOptions = {}) {
    // The default covers the tapproof server's fixed minute: 1 + 2 + 4 + 8 + 16 + 30 s = 61 s.
    this.maxRetries = count(options.maxRetries, 6, 'maxRetries', 0);
    this.rateLimitWaitMs = duration(options.rateLimitWaitMs, 5 * 60_000, 'rateLimitWaitMs');
    this.attempts = count(options.attempts, 3, 'attempts', 1);
    this.baseDelayMs = Math.max(MIN_DELAY_MS, duration(options.baseDelayMs, 1000, 'baseDelayMs'));
  }

  /** The wait before retry number `retry` (0 for the first): the backoff, or the server's hint if longer. */
  delay(retry: number, hint: number | null = null): number {
    return Math.max(hint ?? 0, Math.min(this.baseDelayMs * 2 ** retry, MAX_BACKOFF_MS));
  }
}
