// Claims: a genuine verification linked to a URL (docs/extension.md,
// GET/POST /claims). A claim's verification must be of the base URL's mode.
import { createHash, randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Mode } from '../db/schema.js';
import { Type } from '@sinclair/typebox';
import { DomainError, problem, type FieldProblem } from '../errors.js';
import { fieldProblems, type FieldRule } from '../http/field-rules.js';
import { codePoints, DISPLAY_CONTROLS, isDisplayable, isWellFormed, WELL_FORMED } from '../http/text-rules.js';
import { isHttpUrl } from './catalog/rules.js';
import * as extensionRepo from './repository.js';
import { renderPublicVerification, type PublicVerification } from './serializer.js';
import { isVerificationId, VRF_ID_PATTERN } from './verification-ids.js';
import { isObject } from '../json.js';

export const CLAIM_LIMITS = { resourceUrl: 2048, note: 280, listed: 100 } as const;
/** The longest `resource_url` query value: every code point percent-encoded from 4 bytes of UTF-8 (`%F0%9F%98%80`). */
export const CLAIM_QUERY_MAX = CLAIM_LIMITS.resourceUrl * 12;
const CLAIM_FIELDS = ['resource_url', 'verification_id', 'note'] as const;

const urlHash = (url: string) => createHash('sha256').update(url).digest('hex');

function resourceUrlProblem(value: unknown): string | null {
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

/** GET /claims?resource_url=…: oldest first, at most 100, so a URL's first claims cannot be pushed out. */
export async function claimsOf({ db: { kysely: db } }: Pick<AppContext, 'db'>, mode: Mode, resourceUrl: unknown): Promise<PublicVerification[]> {
  if (resourceUrl === undefined || resourceUrl === '') throw new DomainError('ExtResourceUrlRequired');
  // A repeated parameter (an array) is not one URL.
  if (resourceUrlProblem(resourceUrl) !== null) throw new DomainError('ExtInvalidResourceUrl');
  const url = resourceUrl as string;
  const rows = await extensionRepo.listClaims(db, mode, url, urlHash(url), CLAIM_LIMITS.listed);
  return rows.map(({ claim, verification }) => renderPublicVerification(verification, claim));
}

/**
 * POST /claims: every problem of the body in one `Validation failed`, then the verification.
 * A verification claims a URL once: a repeat answers the claim stored first (`created` false).
 */
export async function createClaim(
  { db: { kysely: db }, clock }: Pick<AppContext, 'db' | 'clock'>,
  mode: Mode,
  body: unknown,
): Promise<{ claim: { id: string; verification_id: string }; created: boolean }> {
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

  const verificationId = body.verification_id as string;
  const platformId = verificationId.length === 26 ? `vrf_${verificationId.slice(4)}` : null;
  const [verification] = platformId ? (await extensionRepo.findPublicVerifications(db, [platformId])).filter((v) => v.mode === mode) : [];
  if (!verification) throw new DomainError('ExtClaimVerificationNotFound');
  if (verification.genuine !== 1) {
    throw new DomainError('ExtVerificationNotValid', [problem('verification_id', `the scan was not genuine (${verification.reason})`)]);
  }
  const resourceUrl = body.resource_url as string;
  const { claim, created } = await extensionRepo.insertClaim(db, {
    id: randomUUID(),
    verification_id: verification.id,
    mode,
    resource_url: resourceUrl,
    resource_url_hash: urlHash(resourceUrl),
    note: typeof body.note === 'string' ? body.note : null,
    created_at: clock.nowMicros(),
  });
  return { claim: { id: claim.id, verification_id: verificationId }, created };
}
