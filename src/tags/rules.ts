// The value rules of tag attributes (docs/api.md#tags). One table serves
// validation (422 with a path per failed attribute) and the OpenAPI schema of the
// request documents (src/tags/schemas.ts composes them from ATTRIBUTES).
import { Type } from '@sinclair/typebox';
import { problem, type FieldProblem } from '../errors.js';
import { fieldProblems, type FieldRule } from '../http/field-rules.js';
import { codePoints, textProblem } from '../http/text-rules.js';

import { PROTOCOLS, type Protocol } from '../chips/protocols.js';

export { PROTOCOLS, type Protocol };

export const LIMITS = {
  batch: 500,
  commentLength: 50,
  sessionDuration: { min: 1, max: 3600, default: 600 },
  // A decision (docs/api.md#tags, `url` length): an upper bound keeps every url indexable on PostgreSQL
  // (a B-tree entry must stay under ~2.7 kB) and matches the extension API's
  // resource_url limit. Real chips hold far less (the NDEF file is 256 bytes).
  urlBytes: 2048,
  pageSize: { default: 10, max: 100 },
} as const;

export const MUTABLE = ['url', 'comment', 'session_duration'] as const;
export const CREATABLE = ['protocol', ...MUTABLE] as const;

const { min, max } = LIMITS.sessionDuration;

export const ATTRIBUTES = {
  protocol: {
    schema: Type.Union(PROTOCOLS.map((p) => Type.Literal(p))),
    explain: (v: unknown) => (typeof v === 'string' && (PROTOCOLS as readonly string[]).includes(v) ? null : `protocol must be one of ${PROTOCOLS.join(', ')}`),
  },
  url: {
    schema: Type.String({
      minLength: 1,
      description: `Written to the chip as given; at most ${LIMITS.urlBytes} bytes of UTF-8, no control characters. Unique per team and mode.`,
    }),
    explain: (v: unknown) => {
      if (typeof v !== 'string') return 'url must be a string';
      if (v.length === 0) return 'url must not be empty';
      const text = textProblem('url', v);
      if (text) return text;
      return Buffer.byteLength(v) > LIMITS.urlBytes ? `url must be at most ${LIMITS.urlBytes} bytes` : null;
    },
  },
  comment: {
    schema: Type.Union([
      Type.String({ maxLength: LIMITS.commentLength, description: `At most ${LIMITS.commentLength} characters (code points), no control characters` }),
      Type.Null(),
    ]),
    explain: (v: unknown) => {
      if (v === null) return null;
      if (typeof v !== 'string') return 'comment must be a string or null';
      const text = textProblem('comment', v);
      if (text) return text;
      return codePoints(v) > LIMITS.commentLength ? `comment must be at most ${LIMITS.commentLength} characters` : null;
    },
  },
  session_duration: {
    schema: Type.Integer({ minimum: min, maximum: max, default: LIMITS.sessionDuration.default, description: 'Seconds a verification session stays open' }),
    explain: (v: unknown) =>
      Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? null : `session_duration must be an integer from ${min} to ${max}`,
  },
} satisfies Record<(typeof CREATABLE)[number], FieldRule>;

/**
 * Checks every attribute present in `attributes` against the rules; `allowed`
 * says which names this operation accepts (others are read-only or unknown);
 * `index` is the entry's place in a batch.
 */
export function checkAttributes(attributes: Record<string, unknown>, allowed: readonly string[], index?: number): FieldProblem[] {
  const errors: FieldProblem[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (!allowed.includes(name)) {
      const known = ['id', 'status', 'configured_at', 'inserted_at', 'updated_at', ...CREATABLE].includes(name);
      errors.push(problem(name, known ? `${name} cannot be changed by this operation` : `${name} is not a tag attribute`, index));
      continue;
    }
    errors.push(...fieldProblems(name, ATTRIBUTES[name as keyof typeof ATTRIBUTES], value, undefined, index));
  }
  return errors;
}
