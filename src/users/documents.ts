// Reading the JSON:API request documents of the user routes: shape problems are 400, value problems
// 422 naming each field (src/users/rules.ts).
import { DomainError, problem, validationFailed, type FieldProblem } from '../errors.js';
import { fieldProblems } from '../http/field-rules.js';
import { isObject, type Json } from '../json.js';
import { ATTRIBUTES, INVITABLE, UPDATABLE, type UserRole } from './rules.js';

function attributesOf(body: unknown, id: string | null): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'users' || !isObject(body.data.attributes)) throw new DomainError('MalformedBody');
  if (id === null && 'id' in body.data) throw new DomainError('MalformedBody');
  if (id !== null && 'id' in body.data && body.data.id !== id) throw new DomainError('IdMismatch');
  return body.data.attributes;
}

function check(attributes: Json, allowed: readonly (keyof typeof ATTRIBUTES)[]): void {
  const errors: FieldProblem[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (!(allowed as readonly string[]).includes(name)) errors.push(problem(name, `${name} cannot be set by this operation`));
    else errors.push(...fieldProblems(name, ATTRIBUTES[name as keyof typeof ATTRIBUTES], value, undefined));
  }
  if (errors.length > 0) throw validationFailed(errors);
}

/** POST /users: the invitee's email and role, both required. */
export function readInviteDocument(body: unknown): { email: string; role: UserRole } {
  const attributes = attributesOf(body, null);
  if (!('email' in attributes) || !('role' in attributes)) throw new DomainError('MissingAttribute');
  check(attributes, INVITABLE);
  return { email: attributes.email as string, role: attributes.role as UserRole };
}

/** PATCH /users/:id: a new role, or disabled true/false. */
export function readUpdateDocument(body: unknown, id: string): { role?: UserRole; disabled?: boolean } {
  const attributes = attributesOf(body, id);
  check(attributes, UPDATABLE);
  return { role: attributes.role as UserRole | undefined, disabled: attributes.disabled as boolean | undefined };
}
