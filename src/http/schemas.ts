// JSON schemas shared by the route declarations: they document the API in
// OpenAPI and let Fastify serialize responses fast. Request bodies are read by
// the feature's document readers (400 for a malformed document vs 422 for a bad
// value, docs/api.md#requests-and-errors, is a distinction schema validation alone cannot make), so Fastify does not validate with them; the
// attribute schemas inside them come from field rules (src/http/field-rules.ts),
// which the readers enforce.
import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorDocument = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        status: Type.String({ description: 'The HTTP status, as a string' }),
        title: Type.String(),
        detail: Type.Optional(Type.String()),
        source: Type.Optional(
          Type.Object({ pointer: Type.Optional(Type.String()), parameter: Type.Optional(Type.String({ description: 'The query parameter at fault' })) }),
        ),
      }),
    ),
  },
  { $id: 'ErrorDocument', title: 'JSON:API error document' },
);

export const Timestamp = Type.String({ description: 'ISO 8601, microsecond precision, UTC', examples: ['2026-01-02T03:04:05.123456Z'] });

export const resourceOf = (type: string, attributes: TSchema, idDescription: string) =>
  Type.Object({ type: Type.Literal(type), id: Type.String({ description: idDescription }), attributes });

/** The error responses a route can give, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorDocument')]));
}

export const IdParam = Type.Object({ id: Type.String() });

/** A success response schema with what it means, which the OpenAPI document shows as the response's description. */
export const answer = <T extends TSchema>(description: string, schema: T): T => ({ ...schema, description });
