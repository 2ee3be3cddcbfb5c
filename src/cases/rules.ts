// The value rules of a case's request bodies (docs/cases.md#the-api). One table serves validation (422
// naming each failed attribute) and the OpenAPI schema of the request documents (schemas.ts).
import { Type } from '@sinclair/typebox';
import type { FieldRule } from '../http/field-rules.js';
import { enumOf } from '../http/query.js';
import { codePoints, textProblem } from '../http/text-rules.js';
import { isId } from '../ids.js';

export const CASE_STATES = ['open', 'acknowledged', 'resolved'] as const;
export const RESOLUTIONS = ['counterfeit_confirmed', 'false_positive', 'expected', 'other'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export const MUTABLE = ['state', 'assignee_id', 'resolution', 'resolution_note'] as const;

export const NOTE_MAX = 10_000;
export const RESOLUTION_NOTE_MAX = 1_000;

const oneOf = (name: string, values: readonly string[]) => (value: unknown) =>
  typeof value === 'string' && values.includes(value) ? null : `${name} must be one of ${values.join(', ')}`;

/** Text of several lines: line breaks and tabs are allowed, other control characters are not. */
function linesProblem(name: string, value: unknown, max: number): string | null {
  if (typeof value !== 'string' || value.trim().length === 0) return `${name} must be a non-empty string`;
  if (codePoints(value) > max) return `${name} must be at most ${max} characters`;
  return textProblem(name, value.replace(/\r\n|[\n\t]/g, ' '));
}

export const ATTRIBUTES = {
  state: {
    schema: { ...enumOf(CASE_STATES), description: 'open → acknowledged → resolved (acknowledged may return to open); a resolved case stays resolved' },
    explain: oneOf('state', CASE_STATES),
  },
  assignee_id: {
    schema: Type.Union([Type.String({ description: 'usr_…: a person of the team' }), Type.Null()], {
      description: 'The person working the case; null: nobody',
    }),
    explain: (value) => (value === null || isId('usr', value) ? null : 'assignee_id must be the id of a person of the team (usr_…) or null'),
  },
  resolution: {
    schema: {
      ...enumOf(RESOLUTIONS),
      description: 'Required to resolve: counterfeit_confirmed, false_positive, expected (travel, a reseller abroad) or other (with resolution_note)',
    },
    explain: oneOf('resolution', RESOLUTIONS),
  },
  resolution_note: {
    schema: Type.String({
      minLength: 1,
      maxLength: RESOLUTION_NOTE_MAX,
      description: `Why; required with resolution other. At most ${RESOLUTION_NOTE_MAX} characters`,
    }),
    explain: (value) => linesProblem('resolution_note', value, RESOLUTION_NOTE_MAX),
  },
} satisfies Record<(typeof MUTABLE)[number], FieldRule>;

export const NOTE_BODY: FieldRule = {
  schema: Type.String({ minLength: 1, maxLength: NOTE_MAX, description: `At most ${NOTE_MAX} characters; line breaks allowed` }),
  explain: (value) => linesProblem('body', value, NOTE_MAX),
};
