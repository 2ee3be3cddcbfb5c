// The console's sign-in: plain JSON under /auth, outside the API's JSON:API scope (docs/users.md).
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../errors.js';
import type { UsersContext } from '../context.js';
import sessionRoutes from './session.js';
import passwordRoutes from './password.js';
import linkRoutes from './links.js';
import oidcRoutes from './oidc.js';
import passkeyRoutes from './passkeys.js';

export const AUTH_PREFIX = '/auth';

export async function installUserAuth(app: FastifyInstance, ctx: UsersContext): Promise<void> {
  await app.register(cookie);
  await app.register(
    async (auth) => {
      // The /auth routes read plain JSON (and Fastify's text/plain, which bodyOf refuses as 400): any other
      // body is the 415 that names application/json, not the API's JSON:API media type.
      auth.addContentTypeParser('*', (_request, _payload, done) => done(new DomainError('ExtUnsupportedMediaType')));
      for (const routes of [sessionRoutes, passwordRoutes, linkRoutes, passkeyRoutes, oidcRoutes]) routes(auth, ctx);
    },
    { prefix: AUTH_PREFIX },
  );
}
