import type { FastifyInstance } from 'fastify';
import { answer } from '../../http/schemas.js';
import type { UsersContext } from '../context.js';
import { readPasskeySignIn } from '../auth-documents.js';
import { signedInAnswer } from '../auth-answers.js';
import { PasskeySignInBody, SignedIn } from '../auth-schemas.js';
import { relyingParty, signInWithPasskey } from '../passkeys.js';
import { originOf, setSessionCookie, visitorOf } from './http.js';
import { NO_CREDENTIAL, authSchema } from './schema.js';

export default function passkeySignInRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/passkeys/sign-in', {
    schema: authSchema(
      'signInWithPasskey',
      "Signs in with a passkey's assertion: the answer sets the session cookie. One 401 for every failure",
      NO_CREDENTIAL,
      { 200: answer('Signed in: the session cookie is set', SignedIn) },
      [400, 401, 415, 422],
      PasskeySignInBody,
    ),
    handler: async (request, reply) => {
      const opened = await signInWithPasskey(ctx, readPasskeySignIn(request.body), relyingParty(originOf(ctx, request)), visitorOf(request));
      setSessionCookie(request, reply, opened);
      return signedInAnswer(ctx, opened.session);
    },
  });
}
