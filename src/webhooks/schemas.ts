import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../events/types.js';
import { Timestamp } from '../http/schemas.js';

const kind = Type.Union(EVENT_TYPES.map((k) => Type.Literal(k)));
const events = Type.Array(kind, { minItems: 1, uniqueItems: true, description: 'Event kinds to receive; all four when omitted at creation' });
const url = Type.String({ minLength: 1, maxLength: 2048, description: 'https (http only where the operator allows it); private and loopback targets are refused' });

export const Webhook = Type.Object(
  {
    type: Type.Literal('webhooks'),
    id: Type.String({ description: 'whk_…' }),
    attributes: Type.Object({
      url: Type.String(),
      events: Type.Array(kind),
      enabled: Type.Boolean(),
      disabled_reason: Type.Union([Type.Literal('gone'), Type.Literal('failing'), Type.Null()], { description: 'Why the platform disabled it: 410 from the endpoint, or 5 days of failures' }),
      secret: Type.Optional(Type.String({ description: 'whsec_…; only in the response that created or rotated it' })),
      previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'Until then the previous secret also signs' }),
      created_at: Timestamp,
      updated_at: Timestamp,
    }),
  },
  { title: 'Webhook' },
);

export const WebhookDocument = Type.Object({ data: Webhook });
export const CreateWebhookBody = Type.Object({ data: Type.Object({ type: Type.Literal('webhooks'), attributes: Type.Object({ url, events: Type.Optional(events) }) }) });
export const UpdateWebhookBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('webhooks'),
    id: Type.Optional(Type.String()),
    attributes: Type.Object({
      url: Type.Optional(url),
      events: Type.Optional(events),
      enabled: Type.Optional(Type.Boolean()),
      rotate_secret: Type.Optional(Type.Boolean({ description: 'true: issue a new secret (returned once); the old one keeps signing for 24 hours' })),
    }),
  }),
});
