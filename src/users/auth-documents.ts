// Reading the /auth bodies: small flat JSON objects. A body that is not an object is 400; a missing or
// mistyped field is 422 naming it (its pointer is `/password`, not `/data/attributes/password`).
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { DomainError, problem, validationFailed, type FieldProblem } from '../errors.js';
import { isObject, type Json } from '../json.js';
import type { Mode } from '../db/schema.js';
import { TRANSPORTS } from './passkeys.js';

/** The body as a JSON object, or 400. An absent body reads as `{}` where `optional`. */
function objectOf(body: unknown, optional = false): Json {
  if (optional && body === undefined) return {};
  if (!isObject(body)) throw new DomainError('MalformedBody', [], undefined, 'the body must be a JSON object');
  return body;
}

/** The string fields `names` of `body`, each required: a missing or non-string one is a 422 naming it. */
function strings<K extends string>(body: unknown, ...names: K[]): Record<K, string> {
  const object = objectOf(body);
  const problems = names.filter((n) => typeof object[n] !== 'string').map((n) => problem(n, `${n} must be a string`));
  if (problems.length > 0) throw validationFailed(problems);
  return Object.fromEntries(names.map((n) => [n, object[n] as string])) as Record<K, string>;
}

export const readSignIn = (body: unknown) => strings(body, 'email', 'password');
export const readLink = (body: unknown) => strings(body, 'token');
export const readLinkPassword = (body: unknown) => strings(body, 'token', 'password');

export function readMode(body: unknown): Mode {
  const { mode } = objectOf(body);
  if (mode !== 'sandbox' && mode !== 'production') throw validationFailed([problem('mode', 'mode must be sandbox or production')]);
  return mode;
}

/** The optional `token`: absent means the signed-in session is the one registering. */
function tokenOf(body: Json): string | undefined {
  if (body.token === undefined) return undefined;
  if (typeof body.token !== 'string') throw validationFailed([problem('token', 'token must be a string')]);
  return body.token;
}

/** POST /auth/passkeys/register/options: a body is optional, since a signed-in user has nothing to send. */
export const readPasskeyOptions = (body: unknown): { token: string | undefined } => ({ token: tokenOf(objectOf(body, true)) });

/**
 * `body.response` as a credential's JSON form, its `response` holding the string fields `fields`; a
 * missing or mistyped field is a 422 naming it. What the strings hold is the ceremony's to judge.
 */
function credentialOf(body: Json, fields: readonly string[]): Json & { id: string; rawId: string; type: string; response: Json } {
  const credential = body.response;
  if (!isObject(credential)) throw validationFailed([problem('response', 'response must be the credential as a JSON object')]);
  const problems: FieldProblem[] = [];
  for (const name of ['id', 'rawId', 'type']) {
    if (typeof credential[name] !== 'string') problems.push(problem(`response.${name}`, `response.${name} must be a string`));
  }
  const inner = credential.response;
  if (!isObject(inner)) {
    problems.push(problem('response.response', 'response.response must be an object'));
  } else {
    for (const name of fields) {
      if (typeof inner[name] !== 'string') problems.push(problem(`response.response.${name}`, `response.response.${name} must be a string`));
    }
    if (inner.userHandle != null && typeof inner.userHandle !== 'string') {
      problems.push(problem('response.response.userHandle', 'response.response.userHandle must be a string or null'));
    }
    if (inner.transports !== undefined && !(Array.isArray(inner.transports) && inner.transports.every((t) => typeof t === 'string'))) {
      problems.push(problem('response.response.transports', 'response.response.transports must be a list of strings'));
    }
  }
  if (problems.length > 0) throw validationFailed(problems);
  const extensions = isObject(credential.clientExtensionResults) ? credential.clientExtensionResults : {};
  return { ...(credential as Json & { id: string; rawId: string; type: string; response: Json }), clientExtensionResults: extensions };
}

/** POST /auth/passkeys/register: a link's token (or none, for the signed-in session) and the new credential. */
export function readPasskeyRegistration(body: unknown): { token: string | undefined; response: RegistrationResponseJSON } {
  const object = objectOf(body);
  const token = tokenOf(object);
  const credential = credentialOf(object, ['clientDataJSON', 'attestationObject']);
  const transports = credential.response.transports as string[] | undefined;
  // Only transports the standard names are kept: the browser echoes them back as hints, nothing more.
  const known = transports?.filter((t) => (TRANSPORTS as readonly string[]).includes(t));
  return { token, response: { ...credential, response: { ...credential.response, transports: known } } as unknown as RegistrationResponseJSON };
}

/** POST /auth/passkeys/sign-in: the authenticator's assertion. */
export const readPasskeySignIn = (body: unknown): AuthenticationResponseJSON =>
  credentialOf(objectOf(body), ['clientDataJSON', 'authenticatorData', 'signature']) as unknown as AuthenticationResponseJSON;
