// The SDK's public types, all derived from the OpenAPI document (generated/platform-api.ts),
// so a change of the API shows up here as a type change at the next `npm run openapi:types`.
import type { components, operations } from './generated/platform-api.js';

type Body<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { 'application/vnd.api+json': infer B } } } ? B : never;
type Ok<Op extends keyof operations, Status extends number> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/vnd.api+json': infer B } }> ? B : never;
type DataOf<D> = D extends { data: infer R } ? R : never;
type Item<D> = D extends readonly (infer I)[] ? I : D;

export type Tag = components['schemas']['Tag'];
export type Protocol = Tag['attributes']['protocol'];
/** One entry of `tags.create`: protocol and url, optionally comment and session_duration. */
export type TagInput = Item<DataOf<Body<'createTags'>>>['attributes'];
/** One entry of `tags.update`: the tag's id and the attributes to set. */
export type TagUpdate = { id: string } & Item<DataOf<Body<'updateTags'>>>['attributes'];
export type TagListParams = NonNullable<operations['listTags']['parameters']['query']>;
export type DeletedTags = Ok<'deleteTags', 200>['meta'];
/** The chip a configured tag is bound to (never a key). */
export type TagChip = DataOf<Ok<'getTagChip', 200>>;
/** A remote personalization of a tag: running, configured or failed. */
export type TagWrite = Item<DataOf<Ok<'listTagWrites', 200>>>;
/** The product a tag's verifications show and the token their owner can prove. */
export type TagLinks = DataOf<Ok<'getTagLinks', 200>>;

type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
/** A time of the read API: a Date, or ISO 8601 as the API takes it (`2026-01-31`, `2026-01-31T12:00:00Z`). */
type Time = Date | string;

export type Verification = DataOf<Ok<'createVerification', 201>>;
export type VerificationReason = Verification['attributes']['reason'];
/** The filters of `verifications.list`; `since` is inclusive, `until` exclusive. The cursor is the SDK's business. */
export type VerificationListParams = Omit<Query<'listVerifications'>, 'genuine' | 'since' | 'until' | 'cursor'> & {
  genuine?: boolean;
  since?: Time;
  until?: Time;
};
/** Counts per UTC day of a window, by reason and by country, with totals (`verifications.stats`). */
export type VerificationStats = Ok<'getVerificationStats', 200>['meta'];
/** First and last UTC day of the window, both included: `YYYY-MM-DD`, or a Date (its UTC day). */
export type VerificationStatsParams = { since?: Time; until?: Time };
export type Session = DataOf<Ok<'getSession', 200>>;
export type Webhook = DataOf<Ok<'createWebhook', 201>>;
export type WebhookInput = DataOf<Body<'createWebhook'>>['attributes'];
export type WebhookUpdate = DataOf<Body<'updateWebhook'>>['attributes'];
/** One webhook's delivery of one event, with every attempt, oldest first. */
export type Delivery = DataOf<Ok<'createRedelivery', 202>>;
export type DeliveryStatus = Delivery['attributes']['status'];
export type DeliveryListParams = Omit<Query<'listDeliveries'>, 'cursor'>;
/** An API key without its text: id, team, mode, created, revoked. */
export type Key = DataOf<Ok<'getKey', 200>>;
export type Team = DataOf<Ok<'getCurrentTeam', 200>>;

type DeliveryBody<Op extends keyof operations> = operations[Op] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** The body of a webhook delivery, one member per event type. */
export type WebhookEvent = DeliveryBody<'tagCreated'> | DeliveryBody<'tagConfigured'> | DeliveryBody<'tagConfigurationFailed'> | DeliveryBody<'tagDeleted'>;
export type WebhookEventType = WebhookEvent['type'];
