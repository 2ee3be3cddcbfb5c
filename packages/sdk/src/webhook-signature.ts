// Standard Webhooks v1 on the receiving side: HMAC-SHA256 over `id.timestamp.body`
// with the secret's base64 part as the key, checked against every `v1,` entry of
// webhook-signature (two while the sender rotates its secret), and a timestamp
// within five minutes of now. Web Crypto only, so it runs wherever fetch does.
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types.js';

/** Seconds a delivery's timestamp may differ from now, either way (replay protection). */
export const TOLERANCE_SECONDS = 5 * 60;

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookInput {
  /** `whsec_…`; during your own rotation, both secrets (either may match). */
  secret: string | readonly string[];
  headers: HeaderBag;
  /** The raw body exactly as received: re-serialized JSON does not verify. */
  body: string | Uint8Array;
  /** Now, for tests (default: the clock). */
  now?: Date | number;
}

function header(headers: HeaderBag, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : (value ?? null);
  return null;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * The key bytes of a `whsec_…` secret; its base64 alone is accepted too, as other Standard Webhooks
 * libraries accept it. The secret never enters the message: the error may end up in a log.
 */
function secretKey(secret: unknown): Uint8Array<ArrayBuffer> {
  if (typeof secret !== 'string')
    throw new WebhookVerificationError(`the webhook secret must be a whsec_… string, not ${secret === null ? 'null' : typeof secret}`);
  let key: Uint8Array<ArrayBuffer>;
  try {
    key = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new WebhookVerificationError('the webhook secret is not whsec_ followed by base64');
  }
  if (key.length === 0) throw new WebhookVerificationError('the webhook secret is empty');
  return key;
}

async function hmac(keyBytes: Uint8Array<ArrayBuffer>, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
}

/**
 * Verifies a delivery and returns its event, typed by `type` (a tag event, or `verification.flagged` with the
 * verification, its tag and its signals); throws WebhookVerificationError otherwise.
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookEvent> {
  // A misconfigured secret is refused on every delivery, not only on those that look well formed.
  const secrets: readonly unknown[] = Array.isArray(input.secret) ? input.secret : [input.secret];
  if (secrets.length === 0) throw new WebhookVerificationError('no webhook secret given');
  const keys = secrets.map(secretKey);
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signature = header(input.headers, 'webhook-signature');
  if (!id || !timestamp || !signature) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  const now = Math.floor((input.now === undefined ? Date.now() : Number(input.now)) / 1000);
  if (Math.abs(now - Number(timestamp)) > TOLERANCE_SECONDS) throw new WebhookVerificationError('webhook-timestamp is more than 5 minutes from now');

  const body = typeof input.body === 'string' ? new TextEncoder().encode(input.body) : input.body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);

  const offered: Uint8Array[] = [];
  for (const entry of signature.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    try {
      offered.push(base64Bytes(value));
    } catch {
      // A malformed entry matches nothing; another entry may still match.
    }
  }
  let match = false;
  for (const key of keys) {
    const expected = await hmac(key, message);
    for (const candidate of offered) match = sameBytes(expected, candidate) || match;
  }
  if (!match) throw new WebhookVerificationError('no signature matches');

  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}
