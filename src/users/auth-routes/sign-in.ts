import type { FastifyInstance } from 'fastify';
import { answer } from '../../http/schemas.js';
import type { UsersContext } from '../context.js';
import { readSignIn } from '../auth-documents.js';
import { signedInAnswer } from '../auth-answers.js';
import { SignInBody, SignedIn } from '../auth-schemas.js';
import { signInWithPassword } from '../sign-in.js';
import { setSessionCookie, throttled, visitorOf } from './http.js';
import { NO_CREDENTIAL, authSchema } from './schema.js';

export default function signInRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/sign-in', {
    schema: authSchema(
      'signIn',
      'Signs in with an email and a password: the answer sets the session cookie. One 401 for every failure; attempts are throttled per address and client',
      NO_CREDENTIAL,
      { 200: answer('Signed in: the session cookie is set', SignedIn) },
      [400, 401, 415, 422],
      SignInBody,
    ),
    handler: async (request, reply) => {
      const opened = await throttled(reply, () => signInWithPassword(ctx, readSignIn(request.body), visitorOf(request)));
      setSessionCookie(request, reply, opened);
      return signedInAnswer(ctx, opened.session);
    },
  });
}
