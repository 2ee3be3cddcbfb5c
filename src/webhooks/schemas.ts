import { RESPONSE_EXCERPT_BYTES } from './sender.js';
import { TEST_EVENT_TYPE } from './event-types.js';
import { Type } from '@sinclair/typebox';
import { Timestamp } from '../http/schemas.js';
import { KeysetQuery, Links, enumOf } from '../http/query.js';
import { ATTRIBUTES } from './rules.js';

// The request documents are composed from the rules table, so what OpenAPI publishes is what validates.
const { url, events, enabled, rotate_secret: rotateSecret } = ATTRIBUTES;
const kind = events.schema.items;

export const Webhook = Type.Object(
  {
    type: Type.Literal('webhooks'),
    id: Type.String({ description: 'whk_…' }),
    attributes: Type.Object({
      url: Type.String(),
      events: Type.Array(kind),
      enabled: Type.Boolean(),
      disabled_reason: Type.Union([Type.Literal('gone'), Type.Literal('failing'), Type.Null()], {
        description: 'Why the platform disabled it: 410 from the endpoint, or 5 days of failures',
      }),
      secret: Type.Optional(Type.String({ description: 'whsec_…; only in the response that created or rotated it' })),
      previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'Until then the previous secret also signs' }),
      created_at: Timestamp,
      updated_at: Timestamp,
    }),
  },
  { title: 'Webhook' },
);

export const WebhookDocument = Type.Object({ data: Webhook });
export const CreateWebhookBody = Type.Object({
  data: Type.Object({ type: Type.Literal('webhooks'), attributes: Type.Object({ url: url.schema, events: Type.Optional(events.schema) }) }),
});
export const UpdateWebhookBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('webhooks'),
    id: Type.Optional(Type.String()),
    attributes: Type.Object({
      url: Type.Optional(url.schema),
      events: Type.Optional(events.schema),
      enabled: Type.Optional(enabled.schema),
      rotate_secret: Type.Optional(rotateSecret.schema),
    }),
  }),
});

export const WebhookList = Type.Object({ data: Type.Array(Webhook, { description: 'Newest first; never a secret' }) });

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'canceled'] as const;
export const DeliveryStatus = enumOf(DELIVERY_STATUSES);
export { DELIVERY_STATUSES };

const Delivery = Type.Object(
  {
    type: Type.Literal('deliveries'),
    id: Type.String({ description: 'The event id (evt_…)' }),
    attributes: Type.Object({
      webhook_id: Type.String(),
      event_type: Type.Union([kind, Type.Literal(TEST_EVENT_TYPE), Type.Null()]),
      tag_id: Type.Union([Type.String(), Type.Null()]),
      status: DeliveryStatus,
      created_at: Timestamp,
      next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'When pending: when the next attempt is due' }),
      attempts: Type.Array(
        Type.Object({
          attempt: Type.Integer({ description: 'Counted from 1 over every attempt, redeliveries included' }),
          started_at: Timestamp,
          status_code: Type.Union([Type.Integer(), Type.Null()], { description: "The endpoint's HTTP status; null when none came" }),
          duration_ms: Type.Integer(),
          error: Type.Union([Type.String(), Type.Null()]),
          response_body: Type.Union([Type.String(), Type.Null()], {
            description: `The first ${RESPONSE_EXCERPT_BYTES} bytes of the endpoint's answer as UTF-8 text; null when no answer came`,
          }),
        }),
        { description: 'Oldest first' },
      ),
    }),
  },
  { title: 'Delivery' },
);

export const DeliveryDocument = Type.Object({ data: Delivery });
export const DeliveryPage = Type.Object({ data: Type.Array(Delivery), links: Links });
export const DeliveriesQuery = Type.Object({ status: Type.Optional(DeliveryStatus), ...KeysetQuery });
export const DeliveryParams = Type.Object({ id: Type.String(), eventId: Type.String() });
