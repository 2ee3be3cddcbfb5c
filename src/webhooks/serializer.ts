import type { ResourceObject } from '../http/jsonapi.js';
import { isoMicros, isoOrNull } from '../time.js';
import type { DeliveryView } from './deliveries.js';
import type { WebhookRow } from './repository.js';

export interface WebhookAttributes {
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  /** Only in the response that created or rotated it. */
  secret?: string;
  /** While the previous secret still signs beside the new one. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** `now` decides whether the previous secret still signs (it is shown only while it does). */
export function renderWebhook(row: WebhookRow, now: number, secret?: string): ResourceObject<WebhookAttributes> {
  const previousLive = row.previous_secret_until !== null && row.previous_secret_until > now;
  return {
    type: 'webhooks',
    id: row.id,
    attributes: {
      url: row.url,
      events: JSON.parse(row.events) as string[],
      enabled: row.enabled === 1,
      disabled_reason: row.disabled_reason,
      ...(secret === undefined ? {} : { secret }),
      previous_secret_expires_at: previousLive ? isoOrNull(row.previous_secret_until) : null,
      created_at: isoMicros(row.created_at),
      updated_at: isoMicros(row.updated_at),
    },
  };
}

/** A delivery of one event to the webhook, with every attempt; its id is the event's. */
export function renderDelivery({ delivery, attempts }: DeliveryView) {
  return {
    type: 'deliveries',
    id: delivery.event_id,
    attributes: {
      webhook_id: delivery.webhook_id,
      event_type: delivery.type,
      // A test event is about no tag (stored as '').
      tag_id: delivery.tag_id === '' ? null : delivery.tag_id,
      status: delivery.status,
      created_at: isoMicros(delivery.created_at),
      next_attempt_at: delivery.status === 'pending' ? isoMicros(delivery.next_attempt_at) : null,
      attempts: attempts.map((a) => ({
        attempt: a.attempt,
        started_at: isoMicros(a.started_at),
        status_code: a.status_code,
        duration_ms: a.duration_ms,
        error: a.error,
        response_body: a.response_excerpt,
      })),
    },
  };
}
