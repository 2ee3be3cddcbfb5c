// webhooks: create, read, update, delete; their deliveries and a redelivery.
import type { CallOptions } from './call.js';
import { keyset } from './pages.js';
import { resourcePath, type Transport } from './transport.js';
import type { Delivery, DeliveryListParams, Webhook, WebhookInput, WebhookUpdate } from './types.js';

export class Webhooks {
  constructor(private readonly transport: Transport) {}

  /**
   * The answer holds the signing secret (`attributes.secret`), shown only this once. Without `events` the webhook
   * gets the four tag events; `verification.flagged` (a scan with a counterfeit signal) only when listed.
   */
  async create(attributes: WebhookInput, call?: CallOptions): Promise<Webhook> {
    const body = { data: { type: 'webhooks', attributes } };
    return (await this.transport.request<{ data: Webhook }>('POST', '/webhooks', { body, idempotent: false, call })).data;
  }

  async get(id: string, call?: CallOptions): Promise<Webhook> {
    return (await this.transport.request<{ data: Webhook }>('GET', resourcePath('webhooks', id), { idempotent: true, call })).data;
  }

  /** The world's webhooks, newest first, never a secret. A world holds a handful: one request. */
  async list(call?: CallOptions): Promise<Webhook[]> {
    return (await this.transport.request<{ data: Webhook[] }>('GET', '/webhooks', { idempotent: true, call })).data;
  }

  /** With `rotate_secret: true` the answer holds the new secret; such a request is never resent. */
  async update(id: string, attributes: WebhookUpdate, call?: CallOptions): Promise<Webhook> {
    const body = { data: { type: 'webhooks', id, attributes } };
    return (
      await this.transport.request<{ data: Webhook }>('PATCH', resourcePath('webhooks', id), { body, idempotent: attributes.rotate_secret !== true, call })
    ).data;
  }

  async delete(id: string, call?: CallOptions): Promise<void> {
    await this.transport.request('DELETE', resourcePath('webhooks', id), { idempotent: true, call });
  }

  /** The webhook's deliveries (optionally of one `status`), newest first, each with its attempts. */
  deliveries(id: string, params: DeliveryListParams = {}, call?: CallOptions): AsyncGenerator<Delivery> {
    return keyset<Delivery>(this.transport, `${resourcePath('webhooks', id)}/deliveries`, params, call);
  }

  /**
   * Sends the event to this webhook again now, on a fresh retry schedule; the attempt numbers go
   * on from the last one. Never resent after a lost answer: the event would be sent twice.
   */
  async redeliver(id: string, eventId: string, call?: CallOptions): Promise<Delivery> {
    const path = `${resourcePath('webhooks', id)}/deliveries/${encodeURIComponent(eventId)}/redeliver`;
    return (await this.transport.request<{ data: Delivery }>('POST', path, { idempotent: false, call })).data;
  }
}
