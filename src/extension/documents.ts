// The bodies of the extension API's writes (docs/extension.md): the rules of their fields,
// published in OpenAPI (schemas.ts) and enforced with these messages, and the readers routes
// parse a body with before a service sees it: every problem of a body in one `Validation failed`.
import { Type } from '@sinclair/typebox';
import { DomainError, problem, type FieldProblem } from '../errors.js';
import { fieldProblems, type FieldRule } from '../http/field-rules.js';
import { codePoints, DISPLAY_CONTROLS, isDisplayable, isWellFormed, WELL_FORMED } from '../http/text-rules.js';
import { isObject } from '../json.js';
import { isHttpUrl } from './catalog/rules.js';
import { isVerificationId, VRF_ID_PATTERN } from '../verifications/index.js';

export const CLAIM_LIMITS = { resourceUrl: 2048, note: 280, listed: 100 } as const;
/** The longest `resource_url` query value: every code point percent-encoded from 4 bytes of UTF-8 (`%F0%9F%98%80`). */
export const CLAIM_QUERY_MAX = CLAIM_LIMITS.resourceUrl * 12;
const CLAIM_FIELDS = ['resource_url', 'verification_id', 'note'] as const;

/** Why a value is no claimable `resource_url`, or null. */
export function resourceUrlProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (codePoints(value) > CLAIM_LIMITS.resourceUrl) return `must be at most ${CLAIM_LIMITS.resourceUrl} characters`;
  if (!isWellFormed(value)) return WELL_FORMED;
  return isHttpUrl(value) ? null : 'must be an absolute http or https URL';
}

/** The fields of POST /claims: published in OpenAPI (ClaimBody) and enforced with these messages. */
export const CLAIM_RULES = {
  resource_url: {
    schema: Type.String({ minLength: 1, maxLength: CLAIM_LIMITS.resourceUrl, description: 'absolute http(s) URL' }),
    explain: resourceUrlProblem,
  },
  verification_id: {
    schema: Type.String({ pattern: VRF_ID_PATTERN }),
    explain: (v: unknown) => (isVerificationId(v) ? null : 'must be VRF_ followed by 6 to 128 letters or digits'),
  },
  note: {
    schema: Type.Union([
      Type.String({ maxLength: CLAIM_LIMITS.note, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]*$' }),
      Type.Null(),
    ]),
    explain: (v: unknown) => {
      if (v === null) return null;
      if (typeof v !== 'string') return 'must be a string';
      if (codePoints(v) > CLAIM_LIMITS.note) return `must be at most ${CLAIM_LIMITS.note} characters`;
      if (!isWellFormed(v)) return WELL_FORMED;
      return isDisplayable(v) ? null : DISPLAY_CONTROLS;
    },
  },
} satisfies Record<(typeof CLAIM_FIELDS)[number], FieldRule>;

/** A claim's fields once read. */
export interface ClaimInput {
  verificationId: string;
  resourceUrl: string;
  note: string | null;
}

/** The body of POST /claims. */
export function readClaim(body: unknown): ClaimInput {
  if (!isObject(body)) throw new DomainError('ExtValidationFailed', [problem('body', 'must be a JSON object')]);
  const problems: FieldProblem[] = [];
  for (const name of Object.keys(body)) if (!(CLAIM_FIELDS as readonly string[]).includes(name)) problems.push(problem(name, 'is not a field of a claim'));
  for (const name of CLAIM_FIELDS) {
    if (!(name in body)) {
      if (name !== 'note') problems.push(problem(name, 'is required'));
    } else if (name !== 'note' || body.note !== undefined) {
      problems.push(...fieldProblems(name, CLAIM_RULES[name], body[name], undefined));
    }
  }
  if (problems.length > 0) throw new DomainError('ExtValidationFailed', problems);

  return {
    verificationId: body.verification_id as string,
    resourceUrl: body.resource_url as string,
    note: typeof body.note === 'string' ? body.note : null,
  };
}

const PROOF_FIELDS = ['session_id', 'address', 'signature', 'key', 'blockchain_type'];
const text = (v: unknown) => (typeof v === 'string' ? null : 'must be a string');

/** The fields of a proof: published in OpenAPI (ProofBody) and enforced with these messages. */
export const PROOF_RULES = {
  // Not `format: uuid`: a session id that is no UUID names no challenge, which is its own answer (Invalid or expired challenge).
  session_id: { schema: Type.String({ description: "The challenge's session_id" }), explain: text },
  address: { schema: Type.String({ description: 'cardano: bech32 or hex; ethereum: 0x-prefixed' }), explain: text },
  signature: {
    schema: Type.String({ description: 'cardano: COSE_Sign1 hex (CIP-30 signData); ethereum: 0x-prefixed personal_sign signature' }),
    explain: text,
  },
  key: { schema: Type.String({ description: 'cardano: COSE_Key hex (required for cardano)' }), explain: text },
  blockchain_type: {
    schema: Type.Union([Type.Literal('cardano'), Type.Literal('ethereum'), Type.Null()], { description: 'cardano or ethereum; ethereum when absent or null' }),
    explain: (v: unknown) => (v === null || v === 'cardano' || v === 'ethereum' ? null : 'must be cardano or ethereum'),
  },
} satisfies Record<string, FieldRule>;

export interface ProofInput {
  sessionId: string;
  address: string;
  signature: string;
  key: string | undefined;
  chain: 'cardano' | 'ethereum';
}

/** The body of POST …/proof: every problem in one `Validation failed`. */
export function readProof(body: unknown): ProofInput {
  if (!isObject(body)) throw new DomainError('ExtValidationFailed', [problem('body', 'must be a JSON object')]);
  const problems: FieldProblem[] = [];
  for (const name of Object.keys(body)) if (!PROOF_FIELDS.includes(name)) problems.push(problem(name, 'is not a field of a proof'));
  for (const name of ['session_id', 'address', 'signature'] as const) {
    if (!(name in body)) problems.push(problem(name, 'is required'));
    else problems.push(...fieldProblems(name, PROOF_RULES[name], body[name], undefined));
  }
  problems.push(...fieldProblems('blockchain_type', PROOF_RULES.blockchain_type, body.blockchain_type ?? null, undefined));
  const chain = body.blockchain_type ?? 'ethereum';
  if (chain === 'cardano' && !('key' in body)) problems.push(problem('key', 'is required for cardano'));
  else if (body.key !== undefined) problems.push(...fieldProblems('key', PROOF_RULES.key, body.key, undefined));
  if (problems.length > 0) throw new DomainError('ExtValidationFailed', problems);
  return {
    sessionId: body.session_id as string,
    address: body.address as string,
    signature: body.signature as string,
    key: body.key as string | undefined,
    chain: chain as ProofInput['chain'],
  };
}
