// Schemas of the extension API for the OpenAPI document and fast response
// serialization. Bodies are read by the services (every problem is reported
// at once, in the API's words: docs/extension.md#claims), so these schemas never reject a request.
import { Type, type TSchema } from '@sinclair/typebox';
import { CLAIM_LIMITS, CLAIM_RULES, PROOF_RULES } from './documents.js';
import { CHALLENGE_RULES } from './challenges.js';
import type { Mode } from '../db/schema.js';
import { VRF_ID_PATTERN } from '../verifications/index.js';
import { TamperStatus } from '../verifications/index.js';

const Iso = Type.String({ description: 'ISO 8601, microsecond precision, UTC', examples: ['2026-01-02T03:04:05.123456Z'] });
const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);

export const ExtError = Type.Object(
  {
    error: Type.String(),
    details: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), { description: 'On `Validation failed` and `Verification is not valid`' }),
    ),
  },
  { title: 'Extension API error' },
);

export const PublicVerification = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: "The verification's UUID; in a claim list, the claim's" }),
    verification_id: Type.String({ pattern: VRF_ID_PATTERN }),
    resource_url: nullable(Type.String({ description: "The claim's URL; null on a verification read alone" })),
    note: nullable(Type.String()),
    verified_at: Iso,
    created_at: Iso,
    country: nullable(Type.String()),
    product: nullable(Type.Object({ id: Type.String(), name: Type.String(), image_url: nullable(Type.String()), description: nullable(Type.String()) })),
    token: nullable(
      Type.Object({
        data: Type.Record(Type.String(), nullable(Type.String()), { description: 'cardano: {policy_id, asset_id}; ethereum: {token_id, standard}' }),
        name: Type.String(),
        symbol: Type.String(),
        blockchain_type: Type.String({ examples: ['cardano', 'ethereum'] }),
        contract_address: nullable(Type.String()),
        supply: Type.Integer(),
      }),
    ),
    ownership: Type.Union([Type.Object({ status: Type.String({ examples: ['verified'] }), wallet_address: Type.String(), verified_at: Iso }), Type.Null()], {
      description: 'null until proven',
    }),
    tamper: Type.Union([TamperStatus, Type.Null()], {
      description: "The scan's TagTamper status, as on the platform's verification; null for chips without one",
    }),
  },
  { title: 'Extension verification' },
);

export const ClaimList = Type.Object({ claims: Type.Array(PublicVerification) });
export const ClaimCreated = Type.Object({ id: Type.String({ format: 'uuid' }), verification_id: Type.String() });
// Composed from the rules that validate it (src/extension/claims.ts).
export const ClaimBody = Type.Object({
  resource_url: CLAIM_RULES.resource_url.schema,
  verification_id: CLAIM_RULES.verification_id.schema,
  note: Type.Optional(CLAIM_RULES.note.schema),
});

export const Challenge = Type.Object({
  session_id: Type.String({ format: 'uuid' }),
  uuid: Type.String({ format: 'uuid' }),
  message: Type.String(),
  expires_at: Iso,
  blockchain_type: Type.String(),
  expected_holders: Type.Array(Type.String()),
});
// Composed from the rules that validate it (src/extension/challenges.ts).
export const ChallengeBody = Type.Object({
  uuid: Type.Optional(CHALLENGE_RULES.uuid.schema),
  verification_id: Type.Optional(CHALLENGE_RULES.verification_id.schema),
  address: Type.Optional(CHALLENGE_RULES.address.schema),
});

// Composed from the rules that validate it (src/extension/proofs.ts).
export const ProofBody = Type.Object({
  session_id: PROOF_RULES.session_id.schema,
  address: PROOF_RULES.address.schema,
  signature: PROOF_RULES.signature.schema,
  key: Type.Optional(PROOF_RULES.key.schema),
  blockchain_type: Type.Optional(PROOF_RULES.blockchain_type.schema),
});
export const ProofResult = Type.Object({
  success: Type.Boolean(),
  request_id: Type.String(),
  ownership: Type.Object({ status: Type.String(), wallet_address: Type.String(), verified_at: Iso }),
});

export const PathId = Type.Object({ id: Type.String({ description: 'VRF_ id or UUID' }) });
export const ClaimsQuery = Type.Object({
  resource_url: Type.String({
    minLength: 1,
    maxLength: CLAIM_LIMITS.resourceUrl,
    format: 'uri',
    description: 'An absolute http or https URL, matched exactly',
  }),
});

export const extErrors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ExtError]));

/**
 * Both bases are in the OpenAPI document (docs/openapi.md): production operations tagged `extension`,
 * their twins under the sandbox base tagged `extension (sandbox)`, each with its own operationId.
 */
export const extOperation = (verb: string, noun: string, mode: Mode) =>
  mode === 'sandbox' ? { operationId: `${verb}Sandbox${noun}`, tags: ['extension (sandbox)'] } : { operationId: `${verb}${noun}`, tags: ['extension'] };
