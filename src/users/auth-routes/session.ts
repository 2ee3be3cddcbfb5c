// Who is signed in, signing out, and switching the world (sandbox or production) the session acts in.
import type { FastifyInstance } from 'fastify';
import { problem, validationFailed } from '../../errors.js';
import type { UsersContext } from '../context.js';
import { checkCsrf, clearSessionCookie, endSession, liveSession, signedInSession, switchMode } from '../sessions.js';
import { bodyOf, sessionAnswer } from './answers.js';

const hidden = { schema: { hide: true } };

export default function sessionRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.get('/config', hidden, async () => ({
    methods: { password: true, passkey: true, oidc: ctx.config.console.oidc !== null, key: ctx.config.console.keySignIn },
  }));

  // Nobody signed in is an answer, not an error (204): the console asks on every load.
  app.get('/session', hidden, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const session = await liveSession(ctx, request);
    if (!session) return reply.code(204).send();
    return sessionAnswer(ctx, session);
  });

  app.post('/sign-out', hidden, async (request, reply) => {
    const session = await liveSession(ctx, request);
    if (session) {
      checkCsrf(request, session);
      await endSession(ctx, session);
    }
    clearSessionCookie(request, reply);
    return reply.code(204).send();
  });

  app.post('/mode', hidden, async (request) => {
    const session = await signedInSession(ctx, request);
    const { mode } = bodyOf(request);
    if (mode !== 'sandbox' && mode !== 'production') throw validationFailed([problem('mode', 'mode must be sandbox or production')]);
    return sessionAnswer(ctx, await switchMode(ctx, session, mode));
  });
}
