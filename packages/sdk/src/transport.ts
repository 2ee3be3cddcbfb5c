// One place where the SDK talks HTTP: JSON:API headers, errors, waiting out the
// rate limit, and retrying what is safe to retry.
import { TapproofError, type ApiError } from './errors.js';

const JSON_API = 'application/vnd.api+json';
const API_PATH = '/api/v1';

export interface RetryOptions {
  /** Longest total wait for the rate limit before a 429 is thrown (default 5 minutes). */
  rateLimitWaitMs?: number;
  /** Attempts of an idempotent request that got no answer or a 502/503/504 (default 3). */
  attempts?: number;
  /** First delay of the backoff; it doubles per retry (default 1 s). */
  baseDelayMs?: number;
}

export interface TapproofOptions {
  /** The server's origin, with or without `/api/v1`: `https://tapproof.example.com`. */
  baseUrl: string;
  /** An API key: `tp_sandbox_…` or `tp_live_…`. */
  key: string;
  retry?: RetryOptions;
  /** Another fetch (a proxy agent, a test double); the global one by default. */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  query?: Record<string, string | number | readonly (string | number)[] | undefined>;
  body?: unknown;
  /**
   * Whether resending after a lost answer leaves the same state. GET and DELETE are; a PATCH that
   * sets attributes is; a POST never is (a resent create creates twice). See README, "Retries".
   */
  idempotent: boolean;
}

/** `https://host` or `https://host/api/v1` (with or without a trailing slash) → `https://host/api/v1`. */
export function apiBase(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(API_PATH) ? trimmed : trimmed + API_PATH;
}

/** `/collection/id`, the id escaped. */
export const resourcePath = (collection: string, id: string) => `/${collection}/${encodeURIComponent(id)}`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * How long the server asks us to wait: `Retry-After` (seconds or a date), else the IETF
 * `RateLimit-Reset` / `X-RateLimit-Reset` seconds. The tapproof server sends none of them on its
 * plain-text 429 (its window is a fixed minute), so the backoff below is what usually applies.
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

function queryString(query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function errorOf(response: Response): Promise<TapproofError> {
  const text = await response.text();
  let errors: ApiError[] = [];
  try {
    const body = JSON.parse(text);
    if (Array.isArray(body?.errors)) errors = body.errors;
    // The extension API's shape, should a caller point a path there.
    else if (typeof body?.error === 'string') errors = [{ status: String(response.status), title: body.error }];
  } catch {
    if (text) errors = [{ status: String(response.status), title: text.slice(0, 200) }];
  }
  return new TapproofError(response.status, errors);
}

export class Transport {
  readonly base: string;
  private readonly key: string;
  private readonly fetch: typeof fetch;
  private readonly rateLimitWaitMs: number;
  private readonly attempts: number;
  private readonly baseDelayMs: number;

  constructor(options: TapproofOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.key) throw new TypeError('key is required');
    this.base = apiBase(options.baseUrl);
    this.key = options.key;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.rateLimitWaitMs = options.retry?.rateLimitWaitMs ?? 5 * 60_000;
    this.attempts = options.retry?.attempts ?? 3;
    this.baseDelayMs = options.retry?.baseDelayMs ?? 1000;
  }

  /** The parsed JSON:API document of a 2xx answer (null for 204), or a thrown TapproofError. */
  async request<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    const headers: Record<string, string> = { accept: JSON_API, authorization: `Bearer ${this.key}` };
    if (options.body !== undefined) headers['content-type'] = JSON_API;
    const init: RequestInit = { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) };
    const url = this.base + path + queryString(options.query);
    let waited = 0;
    let limited = 0;
    let failures = 0;
    for (;;) {
      let response: Response;
      try {
        response = await this.fetch(url, init);
      } catch (cause) {
        failures++;
        const error = new TapproofError(0, [], { cause });
        if (!options.idempotent || failures >= this.attempts) throw error;
        await sleep(this.baseDelayMs * 2 ** (failures - 1));
        continue;
      }
      if (response.ok) {
        const text = await response.text();
        return (text ? JSON.parse(text) : null) as T;
      }
      // A 429 is answered before the request is looked at, so resending is safe for any method.
      if (response.status === 429) {
        const delay = serverWaitMs(response.headers) ?? Math.min(this.baseDelayMs * 2 ** limited, 30_000);
        limited++;
        await response.body?.cancel();
        if (waited + delay > this.rateLimitWaitMs)
          throw new TapproofError(429, [{ status: '429', title: 'Too Many Requests', detail: `still limited after waiting ${Math.round(waited / 1000)} s` }]);
        waited += delay;
        await sleep(delay);
        continue;
      }
      if (options.idempotent && [502, 503, 504].includes(response.status) && ++failures < this.attempts) {
        await response.body?.cancel();
        await sleep(this.baseDelayMs * 2 ** (failures - 1));
        continue;
      }
      throw await errorOf(response);
    }
  }
}
