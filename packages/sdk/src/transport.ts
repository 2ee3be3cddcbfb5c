// One place where the SDK talks HTTP: JSON:API headers, errors, waiting out the
// rate limit, and retrying what is safe to retry (the policy is retry.ts's).
import { Call, checkTimeout, type CallOptions } from './call.js';
import { TapproofError, type ApiError } from './errors.js';
import { RetryPolicy, serverWaitMs, type RetryOptions } from './retry.js';

const JSON_API = 'application/vnd.api+json';
const API_PATH = '/api/v1';
const TRANSIENT = new Set([502, 503, 504]);

export interface TapproofOptions {
  /** The server's origin, with or without `/api/v1`: `https://tapproof.example.com`. */
  baseUrl: string;
  /** An API key: `tp_sandbox_…` or `tp_live_…`. */
  key: string;
  retry?: RetryOptions;
  /** Milliseconds a request may take, its answer's body included, unless a call says otherwise (default 30 s). */
  timeout?: number;
  /** Stops every call of this client (a shutdown), as a call's own signal stops that call. */
  signal?: AbortSignal;
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
  call?: CallOptions | undefined;
}

/** An answer read to its end, so that the timeout covers the body too. */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** `https://host` or `https://host/api/v1` (with or without a trailing slash) → `https://host/api/v1`. */
export function apiBase(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(API_PATH) ? trimmed : trimmed + API_PATH;
}

/** `/collection/id`, the id escaped. */
export const resourcePath = (collection: string, id: string) => `/${collection}/${encodeURIComponent(id)}`;

function queryString(query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function errorOf({ status, text }: Answer): TapproofError {
  let errors: ApiError[] = [];
  try {
    const body = JSON.parse(text);
    if (Array.isArray(body?.errors)) errors = body.errors;
    // The extension API's shape, should a caller point a path there.
    else if (typeof body?.error === 'string') errors = [{ status: String(status), title: body.error }];
  } catch {
    if (text) errors = [{ status: String(status), title: text.slice(0, 200) }];
  }
  return new TapproofError(status, errors);
}

const rateLimited = (retries: number, waitedMs: number) =>
  new TapproofError(429, [
    { status: '429', title: 'Too Many Requests', detail: `still limited after ${retries} retries over ${Math.round(waitedMs / 1000)} s of waiting` },
  ]);

export class Transport {
  readonly base: string;
  private readonly key: string;
  private readonly fetch: typeof fetch;
  private readonly retry: RetryPolicy;
  private readonly timeout: number;
  private readonly signal: AbortSignal | undefined;

  constructor(options: TapproofOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.key) throw new TypeError('key is required');
    this.base = apiBase(options.baseUrl);
    this.key = options.key;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.retry = new RetryPolicy(options.retry);
    this.timeout = checkTimeout(options.timeout ?? 30_000, 'timeout');
    this.signal = options.signal;
  }

  /** The parsed JSON:API document of a 2xx answer (null for 204), or a thrown TapproofError. */
  async request<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    const call = new Call([this.signal, options.call?.signal], checkTimeout(options.call?.timeout ?? this.timeout, 'timeout'));
    const headers: Record<string, string> = { accept: JSON_API, authorization: `Bearer ${this.key}` };
    if (options.body !== undefined) headers['content-type'] = JSON_API;
    const init: RequestInit = { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) };
    const url = this.base + path + queryString(options.query);
    let failures = 0;
    let waited = 0;
    for (let retries = 0; ; retries++) {
      const outcome = await call.attempt(async (signal): Promise<Answer> => {
        const response = await this.fetch(url, { ...init, signal });
        return { status: response.status, headers: response.headers, text: await response.text() };
      });
      const retryable = retries < this.retry.maxRetries;
      let delay: number;
      if ('failure' in outcome) {
        const error = new TapproofError(0, [], { cause: outcome.failure });
        if (!options.idempotent || ++failures >= this.retry.attempts || !retryable) throw error;
        delay = this.retry.delay(retries);
      } else if (outcome.value.status >= 200 && outcome.value.status < 300) {
        return (outcome.value.text ? JSON.parse(outcome.value.text) : null) as T;
      } else if (outcome.value.status === 429) {
        // A 429 is answered before the request is looked at, so resending is safe for any method.
        delay = this.retry.delay(retries, serverWaitMs(outcome.value.headers));
        if (!retryable || waited + delay > this.retry.rateLimitWaitMs) throw rateLimited(retries, waited);
        waited += delay;
      } else if (options.idempotent && TRANSIENT.has(outcome.value.status) && ++failures < this.retry.attempts && retryable) {
        delay = this.retry.delay(retries);
      } else {
        throw errorOf(outcome.value);
      }
      await call.pause(delay);
    }
  }
}
