// The OpenAPI 3.1 `webhooks` section: what the platform POSTs to a registered
// webhook, one entry per event type. The payload is the outbox row as written by
// src/webhooks/outbox.ts; the signature headers are Standard Webhooks v1 (signature.ts).
import { Type, type TSchema } from '@sinclair/typebox';
import { EVENT_TYPES, TAG_EVENT_TYPES, TEST_EVENT_TYPE, type EventType } from './event-types.js';
import { Timestamp } from '../http/schemas.js';

const EMITTED: Record<EventType, string> = {
  'tag.created': 'Each tag created by POST /tags.',
  'tag.configured': 'A tag was written to a chip and is ready to scan.',
  'tag.configuration_failed': 'A write of the tag to a chip failed; `reason` says why.',
  'tag.deleted': 'A tag was deleted (one or many); `data` is its last state.',
  'verification.flagged':
    'A verification carries a counterfeit signal (docs/signals.md); `data` is the verification, `tag` its tag, `signals` its signals. Opt-in: sent only to webhooks that list it.',
  'tag.rekeyed':
    "A configured tag's chip was moved to new keys by the writer (docs/writer.md, Rekey); `data` is the tag, `write_id` the write. Opt-in: sent only to webhooks that list it.",
  'case.opened':
    'A flagged scan of a tag with no unresolved case opened one (docs/cases.md); `data` is the case, `tag` its tag. Later flagged scans join it without an event. Opt-in: sent only to webhooks that list it.',
  'case.updated':
    'A case was triaged (state, assignee, resolution) or given a note (docs/cases.md); `data` is the case as it is now, `tag` its tag, `changes` what changed. Opt-in: sent only to webhooks that list it.',
};

const FailureReason = Type.Object({ code: Type.String({ description: 'timeout, aborted, tag_deleted, uid_bound_to_another_tag, …' }), detail: Type.String() });

type TagEventType = (typeof TAG_EVENT_TYPES)[number];

/** The JSON body of one delivery of a tag event. */
export const eventPayload = (type: TagEventType) =>
  Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Timestamp,
      data: Type.Unsafe({ $ref: '#/components/schemas/Tag' }),
      ...(type === 'tag.configuration_failed' ? { reason: Type.Optional(FailureReason) } : {}),
    },
    { title: type },
  );

const TestEventPayload = Type.Object(
  {
    type: Type.Literal(TEST_EVENT_TYPE),
    timestamp: Timestamp,
    data: Type.Object({ webhook_id: Type.String(), message: Type.String() }),
  },
  { title: TEST_EVENT_TYPE },
);

const header = (name: string, description: string) => ({ name, in: 'header', required: true, schema: { type: 'string' }, description });

const SIGNATURE_HEADERS = [
  header('webhook-id', 'The event id (evt_…): the same on every retry of the event; deduplicate on it.'),
  header('webhook-timestamp', 'Unix seconds of this attempt; refuse one more than 5 minutes from your clock.'),
  header(
    'webhook-signature',
    'Space-separated `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`, one per live secret (two while a rotated secret is still valid).',
  ),
];

const ANSWERS = {
  '2XX': { description: 'Received: the delivery is done.' },
  '410': { description: 'Gone: the platform disables this webhook (disabled_reason gone).' },
  default: {
    description:
      'Any other answer, or none within TAPPROOF_WEBHOOK_TIMEOUT_MS (15 s by default), is retried with backoff (docs/decisions.md §6); after 5 days of failures the webhook is disabled (disabled_reason failing).',
  },
};

const operationName = (type: string) => type.replace(/[._](\w)/g, (_m, c: string) => c.toUpperCase());

/**
 * `webhooks` of the OpenAPI document: a POST per event type, signed per Standard Webhooks. The features
 * that announce the other events give their bodies.
 */
export function webhookOperations(bodies: Record<Exclude<EventType, TagEventType>, TSchema>): Record<string, unknown> {
  const bodyOf = (type: EventType): TSchema =>
    (TAG_EVENT_TYPES as readonly string[]).includes(type) ? eventPayload(type as TagEventType) : bodies[type as keyof typeof bodies];
  const operation = (type: string, description: string, schema: TSchema) => ({
    post: {
      operationId: operationName(type),
      summary: type,
      description,
      tags: ['webhooks'],
      security: [],
      parameters: SIGNATURE_HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: ANSWERS,
    },
  });
  return Object.fromEntries([
    ...EVENT_TYPES.map((type) => [
      type,
      operation(type, `${EMITTED[type]} Sent as application/json to each enabled webhook of the tag's team and mode that subscribes to ${type}.`, bodyOf(type)),
    ]),
    [
      TEST_EVENT_TYPE,
      operation(
        TEST_EVENT_TYPE,
        'Sent only by POST /webhooks/{id}/test, to that one webhook, signed and retried like any other event; no tag changed. Never subscribed to.',
        TestEventPayload,
      ),
    ],
  ]);
}
