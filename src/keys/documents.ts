// Reading the JSON:API request documents of the key routes: shape problems are 400, value problems
// 422 naming each field (src/keys/rules.ts).
import { DomainError, problem, validationFailed, type FieldProblem } from '../errors.js';
import { fieldProblems } from '../http/field-rules.js';
import { parseIsoMicros } from '../http/query.js';
import { isObject, type Json } from '../json.js';
import { ATTRIBUTES, CREATABLE, ROLLABLE, type KeyRuleContext } from './rules.js';
import type { KeyOptions } from './service.js';

function attributesOf(body: unknown): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'keys' || !isObject(body.data.attributes) || 'id' in body.data)
    throw new DomainError('MalformedBody');
  return body.data.attributes;
}

function check(attributes: Json, allowed: readonly (keyof typeof ATTRIBUTES)[], context: KeyRuleContext): void {
  const errors: FieldProblem[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (!(allowed as readonly string[]).includes(name)) errors.push(problem(name, `${name} cannot be set by this operation`));
    else errors.push(...fieldProblems(name, ATTRIBUTES[name as keyof typeof ATTRIBUTES], value, context));
  }
  if (errors.length > 0) throw validationFailed(errors);
}

/** POST /keys: the new key's role (required), name and expiry. */
export function readCreateDocument(body: unknown, context: KeyRuleContext): Required<KeyOptions> {
  const attributes = attributesOf(body);
  if (!('role' in attributes)) throw new DomainError('MissingAttribute');
  check(attributes, CREATABLE, context);
  return {
    role: attributes.role as KeyOptions['role'] & string,
    name: (attributes.name as string | undefined) ?? null,
    expiresAt: attributes.expires_at === undefined ? null : parseIsoMicros(attributes.expires_at as string),
  };
}

/** POST /keys/:id/roll: how many seconds the old key keeps working (no body: 0). */
export function readRollDocument(body: unknown, context: KeyRuleContext): number {
  if (body === undefined || body === null) return 0;
  const attributes = attributesOf(body);
  check(attributes, ROLLABLE, context);
  return (attributes.expires_in as number | undefined) ?? 0;
}
