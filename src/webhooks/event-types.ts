// The events a webhook can receive, apart from the outbox that writes them, so that the webhook
// fan-out and the rules can name them without importing the outbox (which calls the fan-out).
// The four tag lifecycle events are the contract's, and a webhook created without `events` gets
// them; the others are received only when listed.
export const TAG_EVENT_TYPES = ['tag.created', 'tag.configured', 'tag.configuration_failed', 'tag.deleted'] as const;
export const OPT_IN_EVENT_TYPES = ['verification.flagged', 'tag.rekeyed', 'case.opened', 'case.updated'] as const;
export const EVENT_TYPES = [...TAG_EVENT_TYPES, ...OPT_IN_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What `POST /webhooks/{id}/test` sends to that one webhook, so that a receiver can be checked end to end
 * (signature, answer) without a real change. Never subscribed to, never fanned out.
 */
export const TEST_EVENT_TYPE = 'webhook.test';
