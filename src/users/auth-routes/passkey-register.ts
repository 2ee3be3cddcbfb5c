import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.js';
import { readPasskeyRegistration } from '../auth-documents.js';
import { signedInAnswer } from '../auth-answers.js';
import { PasskeyCount, PasskeyRegistrationBody, SignedIn } from '../auth-schemas.js';
import { registerForSession, registerWithLink, relyingParty } from '../passkeys.js';
import { signedInSession } from '../sessions.js';
import { credentialOf, originOf, setSessionCookie, visitorOf } from './http.js';
import { OPTIONAL_SESSION_CHANGE, authSchema } from './schema.js';

export default function passkeyRegisterRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/passkeys/register', {
    schema: authSchema(
      'registerPasskey',
      "Registers a passkey: with a one-time link's token the link is spent and the answer sets the session cookie; without, the signed-in user adds one",
      OPTIONAL_SESSION_CHANGE,
      { 200: Type.Union([SignedIn, PasskeyCount], { description: 'Who is signed in (with a link), or how many passkeys the signed-in user has' }) },
      [400, 401, 403, 415, 422],
      PasskeyRegistrationBody,
    ),
    handler: async (request, reply) => {
      const { token, response } = readPasskeyRegistration(request.body);
      const rp = relyingParty(originOf(ctx, request));
      if (token !== undefined) {
        const opened = await registerWithLink(ctx, token, response, rp, visitorOf(request));
        setSessionCookie(request, reply, opened);
        return signedInAnswer(ctx, opened.session);
      }
      const session = await signedInSession(ctx, credentialOf(request));
      return { passkeys: await registerForSession(ctx, session, response, rp, visitorOf(request)) };
    },
  });
}
