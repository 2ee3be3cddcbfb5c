// The value rules of key attributes: one table validates them (422 naming each field) and
// publishes their schemas (src/keys/schemas.ts).
import { Type } from '@sinclair/typebox';
import type { Explanation, FieldRule } from '../http/field-rules.js';
import { ROLES } from '../http/access.js';
import { parseIsoMicros } from '../http/query.js';
import { codePoints, textProblem } from '../http/text-rules.js';
import { LATEST_SETTABLE, LATEST_SETTABLE_MICROS } from '../time.js';

export const NAME_MAX = 100;
/** The longest overlap of a roll: the old key works this long beside the new one. */
export const ROLL_OVERLAP_MAX_SECONDS = 7 * 24 * 3600;

export const CREATABLE = ['role', 'name', 'expires_at'] as const;
export const ROLLABLE = ['expires_in'] as const;

/** What the rules compare times with: now, in microseconds. */
export interface KeyRuleContext {
  now: number;
}

function explainName(value: unknown): Explanation {
  if (typeof value !== 'string' || value.length === 0 || codePoints(value) > NAME_MAX) return `name must be a string of 1 to ${NAME_MAX} characters`;
  return textProblem('name', value);
}

function explainExpiresAt(value: unknown, { now }: KeyRuleContext): Explanation {
  const at = typeof value === 'string' ? parseIsoMicros(value) : null;
  if (at === null) return 'expires_at must be an ISO 8601 time with offset (2026-01-31T12:00:00Z) or a date';
  if (at >= LATEST_SETTABLE_MICROS) return `expires_at must be before ${LATEST_SETTABLE}`;
  return at > now ? null : 'expires_at must be in the future';
}

export const ATTRIBUTES = {
  role: {
    schema: Type.Union(
      ROLES.map((r) => Type.Literal(r)),
      {
        description:
          'admin: everything, keys included; write: everything but keys; read: GET only; verify: POST /verifications, GET /verifications/{id}, GET /sessions/{id}',
      },
    ),
    explain: (value: unknown) => ((ROLES as readonly unknown[]).includes(value) ? null : `role must be one of ${ROLES.join(', ')}`),
  },
  name: { schema: Type.String({ minLength: 1, maxLength: NAME_MAX, description: 'Tells keys apart in lists' }), explain: explainName },
  expires_at: {
    schema: Type.String({
      description: 'ISO 8601, in the future and before 2200-01-01T00:00:00Z; from then on the key is refused (401) as if revoked. Omitted: never expires',
    }),
    explain: explainExpiresAt,
  },
  expires_in: {
    schema: Type.Integer({
      minimum: 0,
      maximum: ROLL_OVERLAP_MAX_SECONDS,
      default: 0,
      description: 'Seconds the rolled key keeps working beside the new one (at most 7 days); 0 ends it at once',
    }),
    explain: (value: unknown) =>
      Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= ROLL_OVERLAP_MAX_SECONDS
        ? null
        : `expires_in must be a whole number of seconds from 0 to ${ROLL_OVERLAP_MAX_SECONDS} (7 days)`,
  },
} satisfies Record<(typeof CREATABLE)[number] | (typeof ROLLABLE)[number], FieldRule<any, KeyRuleContext>>;
