// The lifecycle events, apart from the outbox that writes them, so that the webhook
// fan-out and the rules can name them without importing the outbox (which calls the fan-out).
export const EVENT_TYPES = ['tag.created', 'tag.configured', 'tag.configuration_failed', 'tag.deleted'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
