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
/** A counterfeit signal a verification can carry (`attributes.signals`, docs/signals.md). */
export type VerificationSignal = Verification['attributes']['signals'][number];
/**
 * The filters of `verifications.list`; `since` is inclusive, `until` exclusive. `flagged`: only the scans with
 * (true) or without (false) a signal; `signal`: only those carrying it (not with `flagged: false`). The cursor
 * is the SDK's business.
 */
export type VerificationListParams = Omit<Query<'listVerifications'>, 'genuine' | 'flagged' | 'since' | 'until' | 'cursor'> & {
  genuine?: boolean;
  flagged?: boolean;
  since?: Time;
  until?: Time;
};
/** Counts per UTC day of a window, by reason, by signal (and `flagged`) and by country, with totals (`verifications.stats`). */
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
/** What a key may call: admin, write, read or verify (docs/keys.md). */
export type KeyRole = Key['attributes']['role'];
/** `keys.create`: the role (required), a name, an expiry (ISO 8601). */
export type KeyInput = DataOf<Body<'createKey'>>['attributes'];
/** A key as created or rolled: `attributes.key` holds its text, shown only in this answer. */
export type NewKey = Key & { attributes: { key: string } };
/** The key's team; `signal_thresholds` are those of the key's mode. */
export type Team = DataOf<Ok<'getCurrentTeam', 200>>;
/** What counts as suspicious for `counter_gap`, `country_jump` and `replay_burst` (docs/signals.md). */
export type SignalThresholds = Team['attributes']['signal_thresholds'];
/** Any of the thresholds to change (`teams.updateThresholds`); the others keep their values. */
export type SignalThresholdsUpdate = NonNullable<DataOf<Body<'updateCurrentTeam'>>['attributes']['signal_thresholds']>;

/** A tag's flagged scans grouped for triage (docs/cases.md). */
export type Case = DataOf<Ok<'getCase', 200>>;
export type CaseState = Case['attributes']['state'];
/** GET /cases/:id: the case, and in `included` its newest scans (with `meta.in_case`, `meta.jumped_from`) and notes. */
export type CaseDocument = Ok<'getCase', 200>;
export type CaseNote = DataOf<Ok<'createCaseNote', 201>>;
/** Cases per state (`cases.counts`). */
export type CaseCounts = Ok<'listCases', 200>['meta']['counts'];
/** The filters of `cases.list`; `since` is inclusive, `until` exclusive (times the case opened). */
export type CaseListParams = Omit<Query<'listCases'>, 'since' | 'until' | 'cursor'> & { since?: Time; until?: Time };
/** What `cases.update` sets: state, assignee_id, resolution (to resolve), resolution_note. */
export type CaseUpdate = DataOf<Body<'updateCase'>>['attributes'];

type DeliveryBody<Op extends keyof operations> = operations[Op] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** A delivery of the opt-in `verification.flagged`: the verification (`data`), its tag and its signals. */
export type VerificationFlaggedEvent = DeliveryBody<'verificationFlagged'>;
/** A delivery of the opt-in `tag.rekeyed`: the tag (`data`) whose chip a write (`write_id`) moved to new keys. */
export type TagRekeyedEvent = DeliveryBody<'tagRekeyed'>;
/** A delivery of the opt-in `case.opened`: the case (`data`) and its tag. */
export type CaseOpenedEvent = DeliveryBody<'caseOpened'>;
/** A delivery of the opt-in `case.updated`: the case as it is now, its tag, and what changed (`changes`). */
export type CaseUpdatedEvent = DeliveryBody<'caseUpdated'>;
/**
 * The body of a webhook delivery, one member per event type: the four tag events, and `verification.flagged`,
 * `tag.rekeyed`, `case.opened` and `case.updated` for a webhook that lists them in its `events`.
 */
export type WebhookEvent =
  | DeliveryBody<'tagCreated'>
  | DeliveryBody<'tagConfigured'>
  | DeliveryBody<'tagConfigurationFailed'>
  | DeliveryBody<'tagDeleted'>
  | VerificationFlaggedEvent
  | TagRekeyedEvent
  | CaseOpenedEvent
  | CaseUpdatedEvent;
export type WebhookEventType = WebhookEvent['type'];
