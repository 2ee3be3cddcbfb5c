// Webhooks' front door: the outbox a change writes its events into, and the event types.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { type EventType } from './event-types.js';
export { recordEvents } from './outbox.js';
