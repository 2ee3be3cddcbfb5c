// @tapproof/sdk: the tapproof platform API from any runtime with fetch (Node ≥ 20,
// Deno, Bun, browsers, edge workers). No runtime dependencies.
import { Cases } from './cases.js';
import { Tags } from './tags.js';
import { Keys, Sessions, Teams } from './resources.js';
import { Verifications } from './verifications.js';
import { Webhooks } from './webhooks.js';
import { Transport, type TapproofOptions } from './transport.js';

export class Tapproof {
  readonly tags: Tags;
  readonly verifications: Verifications;
  readonly cases: Cases;
  readonly sessions: Sessions;
  readonly webhooks: Webhooks;
  readonly keys: Keys;
  readonly teams: Teams;

  constructor(options: TapproofOptions) {
    const transport = new Transport(options);
    this.tags = new Tags(transport);
    this.verifications = new Verifications(transport);
    this.cases = new Cases(transport);
    this.sessions = new Sessions(transport);
    this.webhooks = new Webhooks(transport);
    this.keys = new Keys(transport);
    this.teams = new Teams(transport);
  }
}

export { TapproofBatchError, TapproofError, WebhookVerificationError, type ApiError } from './errors.js';
export { apiBase, type TapproofOptions } from './transport.js';
export type { RetryOptions } from './retry.js';
export type { CallOptions } from './call.js';
export { CHUNK } from './tags.js';
export { TOLERANCE_SECONDS, verifyWebhook, type VerifyWebhookInput } from './webhook-signature.js';
export type * from './types.js';
