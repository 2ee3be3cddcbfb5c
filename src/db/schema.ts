// Row types of every table. Times are integer microseconds since the epoch
// (exact, sortable and the same type on SQLite and PostgreSQL); they become
// ISO 8601 strings only at the API edge.
import type { Generated } from 'kysely';

export type Mode = 'sandbox' | 'production';
/** An API key's role: what it may call (src/http/access.ts). */
export type Role = 'admin' | 'write' | 'read' | 'verify';

export interface TeamsTable {
  id: string;
  name: string;
  parent_id: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  team_id: string;
  mode: Mode;
  /** SHA-256 of the key text, hex. The key itself is never stored. */
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
  /** Microseconds; kept to the minute (src/keys/last-use.ts), null when never used. */
  last_used_at: number | null;
  /** What the key may call (src/http/access.ts). */
  role: Role;
  name: string | null;
  /** Microseconds; refused from then on, as if revoked. */
  expires_at: number | null;
  /** The key a roll made to replace this one. */
  replaced_by: string | null;
}

export interface TagsTable {
  id: string;
  team_id: string;
  mode: Mode;
  protocol: string;
  url: string;
  comment: string | null;
  /** The comment folded for `q` searches (src/tags/search-fold.ts); written with the comment, never returned. */
  comment_folded: string | null;
  session_duration: number;
  status: 'created' | 'configured';
  configured_at: number | null;
  inserted_at: number;
  updated_at: number;
}

/** Maintained with every insert/delete so that GET /tags never counts a team's rows. */
export interface TagCountsTable {
  team_id: string;
  mode: Mode;
  tag_count: number;
}

/** The outbox: one row per lifecycle event, written in the transaction of the change. */
export interface EventsTable {
  seq: Generated<number>;
  id: string;
  team_id: string;
  mode: Mode;
  type: string;
  tag_id: string;
  /** The JSON payload `{type, timestamp, data}` exactly as it will be delivered. */
  payload: string;
  created_at: number;
}

/** Small key/value store for deployment state (bootstrap marker, generated key material). */
export interface SettingsTable {
  name: string;
  value: string;
}

/** A customer endpoint for one team and mode (docs/decisions.md §6). */
export interface WebhooksTable {
  id: string;
  team_id: string;
  mode: Mode;
  url: string;
  /** JSON array of the subscribed event kinds. */
  events: string;
  /** 1 or 0 (the same integer on both engines). */
  enabled: number;
  /** Why the platform disabled it: 'gone' (410), 'failing' (5 days), or null. */
  disabled_reason: string | null;
  /** The `whsec_` secret, sealed (src/secrets). */
  secret_sealed: string;
  /** After a rotation the old secret signs too, until `previous_secret_until`. */
  previous_secret_sealed: string | null;
  previous_secret_until: number | null;
  /** First failure since the last success; 5 days of it disables the endpoint. */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

/** One event to one webhook: the unit the delivery worker claims, sends and retries. */
export interface DeliveriesTable {
  id: Generated<number>;
  event_id: string;
  webhook_id: string;
  status: 'pending' | 'delivered' | 'failed' | 'canceled';
  attempts: number;
  /** Attempts made before the latest redelivery, which restarted `attempts` (and the schedule) at 0. */
  earlier_attempts: Generated<number>;
  /** When pending: when it is due, or (while claimed) when the claim expires. */
  next_attempt_at: number;
  created_at: number;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  webhook_id: string;
  event_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  /** The first RESPONSE_EXCERPT_BYTES of the answer's body as UTF-8 text; null without an answer. */
  response_excerpt: string | null;
}

/** The chip written with a configured tag: how its SUN message is read and checked (docs/decisions.md §4). */
export interface ChipsTable {
  tag_id: string;
  team_id: string;
  mode: Mode;
  protocol: string;
  /** 7-byte UID bound at the write, 14 upper-case hex. */
  uid: string;
  crypto: 'aes' | 'lrp';
  /** 'encrypted' (PICCData), 'plain' (UID and counter in clear), 'sun' (NTAG 223 DNA). */
  mirroring: 'encrypted' | 'plain' | 'sun';
  /** 'derived' from the deployment master (written or emulated here) or 'imported' (sealed below). */
  key_source: 'derived' | 'imported';
  key_version: number;
  sdm_meta_read_key_sealed: string | null;
  sdm_file_read_key_sealed: string | null;
  /** JSON object: parameter role → name in the URL. */
  params: string;
  mac_input_from: string | null;
  write_generation: number;
  /** The master key generation the chip's keys come from (derived) or are sealed under (imported). */
  master_generation: number;
  /** Last accepted SDMReadCtr of this write generation; null before the first genuine scan. */
  last_counter: number | null;
  /** The tag's latest session, and when it stops accepting a second scan. */
  session_id: string | null;
  session_expires_at: number | null;
  /** The tag's previous genuine scan, as the counterfeit signals compare the next one with it. */
  last_country: string | null;
  last_genuine_at: number | null;
  /** 1 once a genuine scan has reported the TagTamper loop open. */
  tamper_opened: number;
  created_at: number;
  /** The key version a rekey under way moves the chip to (derived keys); null when none runs. */
  pending_key_version: number | null;
  /** The master generation the pending keys are derived from; null: the mode's current master. */
  pending_master_generation: number | null;
  /** Imported chips only: application key 0 when the import file carried it (a rekey needs it). */
  app_master_key_sealed: string | null;
}

/** Sandbox: the software chip behind an emulated tag. */
export interface EmulatedChipsTable {
  tag_id: string;
  counter: number;
  tamper_permanent: string | null;
  tamper_current: string | null;
}

export interface VerificationsTable {
  id: string;
  team_id: string;
  mode: Mode;
  tag_id: string;
  genuine: number;
  reason: string;
  read_counter: number | null;
  tamper_permanent: string | null;
  tamper_current: string | null;
  session_id: string | null;
  scanned_at: number;
  /** SHA-256 of the scanned URL: finds the original verification of a page reload. */
  url_hash: string;
  client_ip: string | null;
  country: string | null;
  write_generation: number;
  /** Counterfeit signals, comma-separated in src/signals/names.ts's order; NULL when none. */
  signals: string | null;
}

export interface SessionsTable {
  id: string;
  team_id: string;
  mode: Mode;
  tag_id: string;
  opened_at: number;
  expires_at: number;
}

export interface Database {
  teams: TeamsTable;
  api_keys: ApiKeysTable;
  tags: TagsTable;
  tag_counts: TagCountsTable;
  events: EventsTable;
  settings: SettingsTable;
  chips: ChipsTable;
  emulated_chips: EmulatedChipsTable;
  verifications: VerificationsTable;
  sessions: SessionsTable;
  webhooks: WebhooksTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  master_generations: MasterGenerationsTable;
  audit_events: AuditEventsTable;
  users: UsersTable;
  user_links: UserLinksTable;
  user_passkeys: UserPasskeysTable;
  user_sessions: UserSessionsTable;
  sign_in_challenges: SignInChallengesTable;
  sign_in_failures: SignInFailuresTable;
}

/** A person who signs in to the console: a user of one team, with a key's role (src/users). */
export interface UsersTable {
  id: string;
  team_id: string;
  /** Lower-cased; unique across the deployment. */
  email: string;
  role: Role;
  /** scrypt (src/users/passwords.ts); null until the user sets one. */
  password_hash: string | null;
  /** `<issuer> <sub>` of the single sign-on identity bound at its first sign-in; null when none. */
  oidc_subject: string | null;
  created_at: number;
  /** Refused from then on: no sign-in, every session ended. */
  disabled_at: number | null;
  last_sign_in_at: number | null;
}

/** A one-time link that lets a user set a password or register a passkey (an invite or a reset). */
export interface UserLinksTable {
  /** SHA-256 of the link's token, hex; the token is never stored. */
  token_hash: string;
  user_id: string;
  purpose: 'invite' | 'reset';
  created_at: number;
  expires_at: number;
}

/** A WebAuthn credential of a user (src/users/passkeys.ts). */
export interface UserPasskeysTable {
  /** The credential id, base64url. */
  id: string;
  user_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** JSON array of the authenticator's transports; null when it named none. */
  transports: string | null;
  created_at: number;
  last_used_at: number | null;
}

/** A signed-in console session: the cookie's token hashed, its world, and its CSRF token. */
export interface UserSessionsTable {
  token_hash: string;
  /** Public id (`uss_…`), named in lists and logs instead of the token. */
  id: string;
  user_id: string;
  /** The world the console acts in; the user switches it. */
  mode: Mode;
  csrf_token: string;
  method: 'password' | 'passkey' | 'oidc';
  address: string | null;
  created_at: number;
  last_seen_at: number;
  /** The absolute end, whatever the activity. */
  expires_at: number;
  revoked_at: number | null;
}

/** One ceremony's secret state, spent by its first use: a passkey challenge, or a single sign-on's state. */
export interface SignInChallengesTable {
  /** The challenge (passkeys) or the state parameter (single sign-on). */
  id: string;
  purpose: 'passkey-register' | 'passkey-sign-in' | 'oidc';
  /** The user a registration is for; null for a sign-in. */
  user_id: string | null;
  /** JSON: what the ceremony must check at its end (the OIDC nonce and PKCE verifier). */
  data: string | null;
  expires_at: number;
}

/** A failed sign-in, by account (`account:<email>`) and by address (`address:<ip>`). */
export interface SignInFailuresTable {
  subject: string;
  failed_at: number;
}

/** One resource a change touched, and who made the change (src/audit/record.ts). */
export interface AuditEventsTable {
  id: string;
  /** Null (with mode) for a change to the deployment rather than a team's world. */
  team_id: string | null;
  mode: Mode | null;
  occurred_at: number;
  actor_type: 'key' | 'user' | 'cli' | 'system';
  actor_id: string;
  address: string | null;
  request_id: string | null;
  operation: string;
  resource_type: string;
  resource_id: string | null;
  /** JSON object of the fields the change set (never a secret); null when it names none. */
  changes: string | null;
}

/** The master key generations of each mode (src/master-keys/generations.ts); the highest live one is current. */
export interface MasterGenerationsTable {
  mode: Mode;
  generation: number;
  /** HMAC of a fixed label under the master: names the key without revealing it. */
  check_value: string;
  /** JSON object: sealing purpose → the key id values sealed under this generation carry; null until a process holding the key records them. */
  key_ids: string | null;
  created_at: number;
  /** Set once nothing depends on the generation any more: no process needs its key. */
  retired_at: number | null;
}

export interface Database extends ExtensionTables {}

/** Extension API (docs/decisions.md §7): the operator's catalog. */
export interface ProductsTable {
  id: string;
  team_id: string;
  mode: Mode;
  name: string;
  image_url: string | null;
  description: string | null;
  created_at: number;
}

export interface TokensTable {
  id: string;
  team_id: string;
  mode: Mode;
  chain: 'cardano' | 'ethereum';
  name: string;
  symbol: string;
  supply: number;
  /** Ethereum: the contract (EIP-55); Cardano: null. */
  contract_address: string | null;
  /** Cardano: 56 hex (28-byte policy hash) and the hex asset name (0 to 64 hex). */
  policy_id: string | null;
  asset_name: string | null;
  /** Ethereum: the uint256 token id in decimal (null for erc20). */
  token_number: string | null;
  standard: 'erc721' | 'erc1155' | 'erc20' | null;
  created_at: number;
}

/** What a tag's verifications show: its product and the token its owner can prove. */
export interface TagLinksTable {
  tag_id: string;
  product_id: string | null;
  token_id: string | null;
  updated_at: number;
}

/** A verification linked to a URL. `id` is a UUID; `verification_id` the platform vrf_ id. */
export interface ClaimsTable {
  id: string;
  verification_id: string;
  mode: Mode;
  resource_url: string;
  resource_url_hash: string;
  note: string | null;
  created_at: number;
}

/** A single-use ownership challenge; `id` is the session_id (UUID) the proof echoes. */
export interface ChallengesTable {
  id: string;
  verification_id: string;
  mode: Mode;
  token_id: string;
  chain: 'cardano' | 'ethereum';
  /** Ethereum: the address the EIP-4361 message names. */
  address: string | null;
  message: string;
  issued_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface OwnershipsTable {
  verification_id: string;
  status: 'verified';
  chain: 'cardano' | 'ethereum';
  wallet_address: string;
  token_id: string;
  request_id: string;
  verified_at: number;
}

/** Every successful proof; `replaced_at` set when a later proof took the ownership over. */
export interface OwnershipProofsTable {
  request_id: string;
  verification_id: string;
  chain: 'cardano' | 'ethereum';
  wallet_address: string;
  token_id: string;
  verified_at: number;
  replaced_at: number | null;
}

export interface ExtensionTables {
  products: ProductsTable;
  tokens: TokensTable;
  tag_links: TagLinksTable;
  claims: ClaimsTable;
  challenges: ChallengesTable;
  ownerships: OwnershipsTable;
  ownership_proofs: OwnershipProofsTable;
}

/** Remote personalization (docs/writer.md): one write of a tag onto a chip (src/writer/). */
export interface WriterSessionsTable {
  id: string;
  team_id: string;
  mode: Mode;
  tag_id: string;
  /** The step whose APDUs the writer is running (src/writer/steps.ts). */
  step: string;
  /** JSON: the step machine's state (UID, EV2 session, pending chunks). */
  state: string;
  round_trips: number;
  expires_at: number;
  /** 'personalize' (a created tag onto a blank chip) or 'rekey' (a configured tag's chip to new keys). */
  operation: 'personalize' | 'rekey';
  result: 'configured' | 'rekeyed' | 'failed' | null;
  reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface WriterTables {
  writer_sessions: WriterSessionsTable;
}

export interface Database extends WriterTables {}

/** A wallet's holding of a catalog token, for the embedded holdings provider (docs/wallets.md). */
export interface HoldingsTable {
  token_id: string;
  /** Canonical form: bech32 as given for Cardano, EIP-55 for Ethereum. */
  address: string;
  /** Positive whole number, decimal text. */
  quantity: string;
  updated_at: number;
}

export interface HoldingsTables {
  holdings: HoldingsTable;
}
export interface Database extends HoldingsTables {}

/** Verifications counted per world, UTC day (YYYY-MM-DD), reason and country ('' unknown): scan statistics. */
export interface ScanCountsTable {
  team_id: string;
  mode: Mode;
  day: string;
  reason: string;
  country: string;
  count: number;
}

export interface ScanCountsTables {
  scan_counts: ScanCountsTable;
}
export interface Database extends ScanCountsTables {}

/** A world's signal thresholds (src/signals/thresholds.ts); no row: the defaults. */
export interface SignalThresholdsTable {
  team_id: string;
  mode: Mode;
  counter_gap: number;
  country_jump_window: number;
  replay_burst: number;
  updated_at: number;
}

/** Flagged verifications counted per world, UTC day and signal ('flagged': those with any signal). */
export interface SignalCountsTable {
  team_id: string;
  mode: Mode;
  day: string;
  signal: string;
  count: number;
}

/**
 * verification.flagged coalesced per tag and signal: the window since the last event of a (tag, signal),
 * and the flagged scans held back in it (the last of them kept for the window's summary).
 */
export interface FlagWindowsTable {
  tag_id: string;
  signal: string;
  team_id: string;
  mode: Mode;
  opened_at: number;
  held: number;
  last_held_id: string | null;
}

/** Flagged verifications counted per world, UTC day and country ('' when unknown). */
export interface FlaggedCountsTable {
  team_id: string;
  mode: Mode;
  day: string;
  country: string;
  count: number;
}

export interface SignalsTables {
  signal_thresholds: SignalThresholdsTable;
  signal_counts: SignalCountsTable;
  flagged_counts: FlaggedCountsTable;
  flag_windows: FlagWindowsTable;
}
export interface Database extends SignalsTables {}

export type CaseState = 'open' | 'acknowledged' | 'resolved';

/** A tag's flagged scans grouped for triage (docs/cases.md); at most one unresolved case per tag. */
export interface CasesTable {
  id: string;
  team_id: string;
  mode: Mode;
  tag_id: string;
  state: CaseState;
  opened_at: number;
  last_seen_at: number;
  updated_at: number;
  scans: number;
  /** The signals of its scans, comma-separated in the signals' order. */
  signals: string;
  /** JSON: scans per signal. */
  signal_counts: string;
  /** JSON: the countries its scans came from, sorted. */
  countries: string;
  assignee_id: string | null;
  resolution: string | null;
  resolution_note: string | null;
  previous_case_id: string | null;
  acknowledged_at: number | null;
  resolved_at: number | null;
}

/** The flagged scans of a case. */
export interface CaseScansTable {
  case_id: string;
  scanned_at: number;
  verification_id: string;
}

/** A case's thread: notes are appended, never changed. */
export interface CaseNotesTable {
  id: string;
  case_id: string;
  author_type: string;
  author_id: string;
  body: string;
  created_at: number;
}

export interface CasesTables {
  cases: CasesTable;
  case_scans: CaseScansTable;
  case_notes: CaseNotesTable;
}
export interface Database extends CasesTables {}

/** What a person chose to be emailed (docs/email.md); no row: nothing. */
export interface NotificationSettingsTable {
  user_id: string;
  team_id: string;
  case_opened: number;
  daily_digest: number;
  /** Also the sandbox's cases, not only production's. */
  sandbox: number;
  /** When the digest was turned on (null: off); a digest whose day ended before it is not sent. */
  digest_from: number | null;
  updated_at: number;
}

export type MailKind = 'case_opened' | 'digest' | 'invite' | 'reset';
export type MailStatus = 'pending' | 'sent' | 'failed' | 'skipped';

/** A mail to a person: a reference to what it tells, rendered when sent (docs/email.md#the-outbox). */
export interface MailOutboxTable {
  id: string;
  team_id: string;
  user_id: string;
  kind: MailKind;
  mode: Mode | null;
  /** The case, or the digest's day (YYYY-MM-DD). */
  subject_id: string | null;
  /** One mail per event: `case_opened:<case>:<user>`, `digest:<user>:<day>`, `invite:<user>:<at>`. */
  dedupe: string;
  status: MailStatus;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

export interface MailTables {
  notification_settings: NotificationSettingsTable;
  mail_outbox: MailOutboxTable;
}
export interface Database extends MailTables {}
