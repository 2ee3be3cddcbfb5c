import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.js';
import { checkCsrf, endSession, liveSession } from '../sessions.js';
import { clearSessionCookie, credentialOf } from './http.js';
import { OPTIONAL_SESSION_CHANGE, authSchema } from './schema.js';

export default function signOutRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/sign-out', {
    schema: authSchema(
      'signOut',
      "Ends the cookie's session on every server and clears the cookie; without a live session, only clears it",
      OPTIONAL_SESSION_CHANGE,
      { 204: { description: 'Signed out' } },
      [403],
    ),
    handler: async (request, reply) => {
      const credential = credentialOf(request);
      const session = await liveSession(ctx, credential.token);
      if (session) {
        checkCsrf(credential, session);
        await endSession(ctx, session);
      }
      clearSessionCookie(request, reply);
      return reply.code(204).send();
    },
  });
}
