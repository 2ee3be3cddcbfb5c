import type { FastifyInstance } from 'fastify';
import { answer } from '../../http/schemas.js';
import type { UsersContext } from '../context.js';
import { SignInMethods } from '../auth-schemas.js';
import { NO_CREDENTIAL, authSchema } from './schema.js';

export default function getConfigRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.get('/config', {
    schema: authSchema(
      'getSignInMethods',
      'The ways to sign in this deployment offers',
      NO_CREDENTIAL,
      { 200: answer('Which sign-in methods the console should offer', SignInMethods) },
      [],
    ),
    handler: async () => ({
      methods: { password: true, passkey: true, oidc: ctx.config.console.oidc !== null, key: ctx.config.console.keySignIn },
    }),
  });
}
