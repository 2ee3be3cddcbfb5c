// Signing in with an email and a password (src/users/sign-in.ts).
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.js';
import { Throttled, signInWithPassword } from '../sign-in.js';
import { bodyOf, sessionAnswer, strings } from './answers.js';

export default function passwordRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const { email, password } = strings(bodyOf(request), 'email', 'password');
    try {
      const session = await signInWithPassword(ctx, { email, password }, request, reply);
      return await sessionAnswer(ctx, session);
    } catch (error) {
      if (error instanceof Throttled) reply.header('retry-after', String(error.retryAfter));
      throw error;
    }
  });
}
