// Passkeys (src/users/passkeys.ts): registering one with a one-time link or from a signed-in session,
// and signing in with one. Each ceremony is two requests: its options (with a fresh challenge), then the
// authenticator's answer, sent as the JSON form of the credential that @simplewebauthn/browser makes.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance } from 'fastify';
import { problem, validationFailed, type FieldProblem } from '../../errors.js';
import { isObject, type Json } from '../../json.js';
import type { UsersContext } from '../context.js';
import { registerForSession, registerWithLink, registrationOptions, relyingParty, signInOptions, signInWithPasskey, TRANSPORTS } from '../passkeys.js';

import { userOfLink } from '../service.js';
import { signedInSession, userOfSession } from '../sessions.js';
import { bodyOf, originOf, sessionAnswer } from './answers.js';

const hidden = { schema: { hide: true } };

/** The optional `token`: absent means the signed-in session is the one registering. */
function tokenOf(body: Json): string | undefined {
  if (body.token === undefined) return undefined;
  if (typeof body.token !== 'string') throw validationFailed([problem('token', 'token must be a string')]);
  return body.token;
}

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

const registrationOf = (body: Json): RegistrationResponseJSON => {
  const credential = credentialOf(body, ['clientDataJSON', 'attestationObject']);
  const transports = credential.response.transports as string[] | undefined;
  // Only transports the standard names are kept: the browser echoes them back as hints, nothing more.
  const known = transports?.filter((t) => (TRANSPORTS as readonly string[]).includes(t));
  return { ...credential, response: { ...credential.response, transports: known } } as unknown as RegistrationResponseJSON;
};

const authenticationOf = (body: Json): AuthenticationResponseJSON =>
  credentialOf(body, ['clientDataJSON', 'authenticatorData', 'signature']) as unknown as AuthenticationResponseJSON;

export default function passkeyRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/passkeys/register/options', hidden, async (request) => {
    // A body is optional here: a signed-in user asking for options has nothing to send.
    const token = tokenOf(request.body === undefined ? {} : bodyOf(request));
    const rp = relyingParty(originOf(ctx, request));
    if (token !== undefined) return registrationOptions(ctx, (await userOfLink(ctx.db.kysely, ctx, token)).user, rp);
    const session = await signedInSession(ctx, request);
    return registrationOptions(ctx, await userOfSession(ctx, session), rp);
  });

  app.post('/passkeys/register', hidden, async (request, reply) => {
    const body = bodyOf(request);
    const token = tokenOf(body);
    const response = registrationOf(body);
    const rp = relyingParty(originOf(ctx, request));
    if (token !== undefined) return sessionAnswer(ctx, await registerWithLink(ctx, token, response, rp, request, reply));
    const session = await signedInSession(ctx, request);
    return { passkeys: await registerForSession(ctx, session, response, rp, request) };
  });

  app.post('/passkeys/sign-in/options', hidden, async (request) => signInOptions(ctx, relyingParty(originOf(ctx, request))));

  app.post('/passkeys/sign-in', hidden, async (request, reply) => {
    const response = authenticationOf(bodyOf(request));
    const session = await signInWithPasskey(ctx, response, relyingParty(originOf(ctx, request)), request, reply);
    return sessionAnswer(ctx, session);
  });
}
