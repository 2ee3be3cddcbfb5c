// The extension API (docs/extension.md) from a browser: plain JSON, no credential, one base URL per mode
// (`…/ext` shows production verifications only, `…/ext/sandbox` sandbox ones only).
import type { operations } from './generated/extension-api.js';

// Types from the server's OpenAPI document (generated/extension-api.ts, `npm run openapi:types` at the root).
type Json<Op extends keyof operations, Status extends number> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer B } }> ? B : never;
type RequestJson<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** A genuine verification (`GET /verifications/{id}`) or a claim of one (`GET /claims`). */
export type ExtVerification = Json<'getPublicVerification', 200>;
export type Ownership = NonNullable<ExtVerification['ownership']>;
export type Tamper = NonNullable<ExtVerification['tamper']>;
export type Token = NonNullable<ExtVerification['token']>;
export type ClaimBody = RequestJson<'createClaim'>;
export type ClaimCreated = Json<'createClaim', 201>;
export type ChallengeBody = RequestJson<'createChallenge'>;
export type Challenge = Json<'createChallenge', 200>;
export type ProofBody = RequestJson<'createProof'>;
export type ProofResult = Json<'createProof', 200>;

/** An answer other than 2xx: `message` is the API's `error` (or the 429's plain text). */
export class ExtensionError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly details: { field: string; message: string }[] = [],
    /** The `x-request-id` to quote to support. */
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ExtensionError';
  }
}

/** `https://tapproof.example` → its production or sandbox extension base (`prefix` is TAPPROOF_EXT_PREFIX). */
export const extensionBase = (origin: string, options: { sandbox?: boolean; prefix?: string } = {}) =>
  origin.replace(/\/+$/, '') + (options.prefix ?? '/ext') + (options.sandbox ? '/sandbox' : '');

export class ExtensionClient {
  private readonly base: string;

  /** `base`: the extension base URL, `https://tapproof.example/ext` or `…/ext/sandbox`. */
  constructor(
    base: string,
    private readonly fetcher: typeof fetch = (...args) => fetch(...args),
  ) {
    this.base = base.replace(/\/+$/, '');
  }

  lookup(id: string): Promise<ExtVerification> {
    return this.send('GET', `/verifications/${encodeURIComponent(id)}`);
  }

  /** The claims of a page, oldest first (at most 100). */
  async claims(resourceUrl: string): Promise<ExtVerification[]> {
    return (await this.send<{ claims: ExtVerification[] }>('GET', `/claims?resource_url=${encodeURIComponent(resourceUrl)}`)).claims;
  }

  claim(body: ClaimBody): Promise<ClaimCreated> {
    return this.send('POST', '/claims', body);
  }

  /** Ethereum: with `address`, the message is a Sign-In with Ethereum message naming it. */
  challenge(id: string, body: ChallengeBody = {}): Promise<Challenge> {
    return this.send('POST', `/verifications/${encodeURIComponent(id)}/challenge`, body);
  }

  proof(id: string, body: ProofBody): Promise<ProofResult> {
    return this.send('POST', `/verifications/${encodeURIComponent(id)}/proof`, body);
  }

  private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.fetcher(this.base + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json: { error?: string; details?: ExtensionError['details'] } | null = null;
    try {
      json = JSON.parse(text);
    } catch {
      // The rate limiter's 429 is plain text; kept as the message below.
    }
    if (response.ok) return json as unknown as T;
    throw new ExtensionError(json?.error ?? (text || response.statusText), response.status, json?.details ?? [], response.headers.get('x-request-id'));
  }
}
