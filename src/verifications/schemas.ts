import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';
import { Links, enumOf } from '../http/query.js';
import { ATTRIBUTES } from './rules.js';
import { SIGNALS } from '../signals/index.js';

export const REASONS = ['ok', 'replayed', 'bad_cmac', 'bad_picc_data', 'uid_mismatch'] as const;

const TamperState = Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('not_enabled')]);
/** A TagTamper chip's status in a scan (also on the extension API's verification). */
export const TamperStatus = Type.Object({ permanent: TamperState, current: TamperState });

const Signal = enumOf(SIGNALS);
const Signals = Type.Array(Signal, {
  description: 'What looks wrong about this scan (docs/signals.md); empty when nothing does. Never changes genuine or reason.',
});

export const Verification = resourceOf(
  'verifications',
  Type.Object({
    genuine: Type.Boolean(),
    reason: Type.Union(REASONS.map((r) => Type.Literal(r))),
    verification_id: Type.String({ description: "The extension API's id of this verification: VRF_ and the random part of its id (docs/extension.md, Ids)" }),
    tag_id: Type.String(),
    read_counter: Type.Union([Type.Integer(), Type.Null()], { description: 'SDMReadCtr of the scan; null when the message was not authentic' }),
    tamper: Type.Union([TamperStatus, Type.Null()], { description: 'TagTamper status; null for chips without one' }),
    session_id: Type.Union([Type.String(), Type.Null()]),
    scanned_at: Timestamp,
    country: Type.Union([Type.String(), Type.Null()], {
      description:
        'ISO 3166-1 alpha-2 country of client_ip (or of the request address behind a trusted proxy); null for private, reserved and unknown addresses',
    }),
    client_ip: Type.Union([Type.String(), Type.Null()], { description: 'The client_ip the scan was verified with; null when none was given' }),
    signals: Signals,
  }),
  'Prefix vrf_',
);

export const VerificationDocument = Type.Object({
  data: Verification,
  meta: Type.Optional(
    Type.Object({
      repeat: Type.Boolean({ description: "true when this answers an earlier verification again: the same URL within the tag's session, a page reload" }),
    }),
  ),
});
export const VerificationPage = Type.Object({ data: Type.Array(Verification), links: Links });

const ByReason = Type.Object(Object.fromEntries(REASONS.map((r) => [r, Type.Integer()])) as Record<(typeof REASONS)[number], ReturnType<typeof Type.Integer>>);
const ByCountry = Type.Array(
  Type.Object({
    country: Type.Union([Type.String(), Type.Null()], { description: 'ISO 3166-1 alpha-2 (DE); null: unknown' }),
    count: Type.Integer(),
    flagged: Type.Integer({ description: 'Of these, the scans carrying at least one signal' }),
  }),
  { description: 'Most scans first, then by country' },
);
const BySignal = Type.Object(Object.fromEntries(SIGNALS.map((s) => [s, Type.Integer()])) as Record<(typeof SIGNALS)[number], ReturnType<typeof Type.Integer>>, {
  description: 'Scans carrying each signal',
});
const Counts = Type.Object({
  count: Type.Integer(),
  flagged: Type.Integer({ description: 'Scans carrying at least one signal' }),
  by_reason: ByReason,
  by_signal: BySignal,
  by_country: ByCountry,
});

export const VerificationStatsDocument = Type.Object({
  meta: Type.Object({
    since: Type.String({ format: 'date' }),
    until: Type.String({ format: 'date' }),
    totals: Counts,
    days: Type.Array(Type.Intersect([Type.Object({ day: Type.String({ format: 'date' }) }), Counts]), {
      description: 'Every UTC day of the window, oldest first, zeros included',
    }),
  }),
});

export const CreateVerificationBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('verifications'),
    // Composed from the rules that validate it (src/verifications/rules.ts).
    attributes: Type.Object({ url: ATTRIBUTES.url.schema, client_ip: Type.Optional(ATTRIBUTES.client_ip.schema) }),
  }),
});

/** The body of a verification.flagged delivery (src/verifications/flagged-events.ts). */
export const VerificationFlaggedEvent = Type.Object(
  {
    type: Type.Literal('verification.flagged'),
    timestamp: Timestamp,
    data: Verification,
    tag: Type.Unsafe({ $ref: '#/components/schemas/Tag' }),
    signals: Type.Array(Signal, { minItems: 1 }),
    scans: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), {
      description:
        'Per signal of this event: how many flagged scans of the tag it stands for, itself included: the scans held back since the previous event of that tag and signal (docs/signals.md). An event sent when a quiet window ends with scans held back carries the last of them, and only the signals it stands for.',
    }),
  },
  { title: 'verification.flagged' },
);
