import type { FastifyInstance } from 'fastify';
import { answer } from '../../http/schemas.js';
import type { UsersContext } from '../context.js';
import { signedInAnswer } from '../auth-answers.js';
import { SignedIn } from '../auth-schemas.js';
import { liveSession } from '../sessions.js';
import { credentialOf } from './http.js';
import { OPTIONAL_SESSION, authSchema } from './schema.js';

export default function getSessionRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.get('/session', {
    schema: authSchema(
      'getConsoleSession',
      'Who is signed in',
      OPTIONAL_SESSION,
      { 200: answer('Who is signed in', SignedIn), 204: { description: 'Nobody: no session cookie, or its session has ended' } },
      [],
    ),
    // Nobody signed in is an answer, not an error (204): the console asks on every load.
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const session = await liveSession(ctx, credentialOf(request).token);
      if (!session) return reply.code(204).send();
      return signedInAnswer(ctx, session);
    },
  });
}
