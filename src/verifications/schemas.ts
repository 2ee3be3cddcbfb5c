import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';
import { ATTRIBUTES } from './rules.js';

const TamperState = Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('not_enabled')]);

export const VerificationDocument = Type.Object({
  data: resourceOf(
    'verifications',
    Type.Object({
      genuine: Type.Boolean(),
      reason: Type.Union(['ok', 'replayed', 'bad_cmac', 'bad_picc_data', 'uid_mismatch'].map((r) => Type.Literal(r))),
      tag_id: Type.String(),
      read_counter: Type.Union([Type.Integer(), Type.Null()], { description: 'SDMReadCtr of the scan; null when the message was not authentic' }),
      tamper: Type.Union([Type.Object({ permanent: TamperState, current: TamperState }), Type.Null()], { description: 'TagTamper status; null for chips without one' }),
      session_id: Type.Union([Type.String(), Type.Null()]),
      scanned_at: Timestamp,
      country: Type.Union([Type.String(), Type.Null()], { description: 'From client_ip when a GeoIP database is configured; none is yet, so null' }),
    }),
    'Prefix vrf_',
  ),
});

export const CreateVerificationBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('verifications'),
    // Composed from the rules that validate it (src/verifications/rules.ts).
    attributes: Type.Object({ url: ATTRIBUTES.url.schema, client_ip: Type.Optional(ATTRIBUTES.client_ip.schema) }),
  }),
});
