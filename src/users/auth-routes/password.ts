// Signing in with an email and a password (src/users/sign-in.ts).
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.js';
import { signInWithPassword } from '../sign-in.js';
import { bodyOf, sessionAnswer, strings, throttled } from './answers.js';

export default function passwordRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const { email, password } = strings(bodyOf(request), 'email', 'password');
    return sessionAnswer(ctx, await throttled(reply, () => signInWithPassword(ctx, { email, password }, request, reply)));
  });
}
