// One rule per request field: the JSON Schema that OpenAPI publishes for it and
// that validates it, and the sentence the API gives when a value fails. The
// schema is compiled by Ajv, Fastify's own validator: it counts string lengths
// in code points as JSON Schema says (TypeBox's checker counts UTF-16 units, so
// a comment of 50 emoji would fail a `maxLength: 50` it meets). Rules stay out of
// Fastify's request validation because the API tells 400 (a malformed document)
// from 422 (a bad attribute, docs/api.md#requests-and-errors) and names each failed field, which a route schema's
// first error cannot.
import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { problem, type FieldProblem } from '../errors.js';

/** One sentence about the field, or problems at paths below it (`events/1`). */
export type Explanation = string | { path: string; detail: string }[] | null;

export interface FieldRule<S extends TSchema = TSchema, C = void> {
  /** Published in OpenAPI and enforced: a value the schema refuses is refused. */
  schema: S;
  /**
   * Why `value` is refused, or null: says in words what the schema refuses
   * (the API's sentences) and checks what JSON Schema cannot say (bytes of UTF-8,
   * control characters, what the deployment allows, given as `context`).
   */
  explain(value: unknown, context: C): Explanation;
}

const ajv = new Ajv({ strict: false, allErrors: false });
const compiled = new WeakMap<TSchema, ValidateFunction>();

function validator(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

/**
 * The rule's verdict on `value`: no problems when both the schema and the
 * explanation accept it. A value only the schema refuses (an explanation lagging
 * behind its schema) still fails, with a sentence naming the field.
 */
export function fieldProblems<C>(name: string, rule: FieldRule<TSchema, C>, value: unknown, context: C, index?: number): FieldProblem[] {
  const why = rule.explain(value, context);
  if (typeof why === 'string') return [problem(name, why, index)];
  if (why !== null && why.length > 0) return why.map((p) => problem(p.path, p.detail, index));
  return validator(rule.schema)(value) ? [] : [problem(name, `${name} is not valid`, index)];
}
