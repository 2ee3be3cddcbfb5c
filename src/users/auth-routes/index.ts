// Console users at the HTTP edge: the sign-in under /auth (plain JSON, outside the API's JSON:API scope,
// docs/users.md; one file per operation, documented in the OpenAPI document with the session cookie as
// their credential), and the session authentication the platform API's scope accepts beside bearer keys
// (src/http/auth.ts).
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../errors.js';
import type { Principal } from '../../world.js';
import type { UsersContext } from '../context.js';
import { principalOf, signedInSession } from '../sessions.js';
import { credentialOf } from './http.js';
import getConfigRoute from './get-config.js';
import getSessionRoute from './get-session.js';
import signInRoute from './sign-in.js';
import signOutRoute from './sign-out.js';
import setModeRoute from './set-mode.js';
import inspectLinkRoute from './inspect-link.js';
import setPasswordWithLinkRoute from './set-password-with-link.js';
import passkeyRegisterOptionsRoute from './passkey-register-options.js';
import passkeyRegisterRoute from './passkey-register.js';
import passkeySignInOptionsRoute from './passkey-sign-in-options.js';
import passkeySignInRoute from './passkey-sign-in.js';
import oidcStartRoute from './oidc-start.js';
import oidcCallbackRoute from './oidc-callback.js';

export const AUTH_PREFIX = '/auth';

const ROUTES = [
  getConfigRoute,
  getSessionRoute,
  signInRoute,
  signOutRoute,
  setModeRoute,
  inspectLinkRoute,
  setPasswordWithLinkRoute,
  passkeyRegisterOptionsRoute,
  passkeyRegisterRoute,
  passkeySignInOptionsRoute,
  passkeySignInRoute,
  oidcStartRoute,
  oidcCallbackRoute,
];

export async function installUserAuth(app: FastifyInstance, ctx: UsersContext): Promise<void> {
  await app.register(cookie);
  // Changes other processes make to sessions reach this one's cache while it runs (session-cache.ts).
  const { database } = ctx.config;
  app.addHook('onClose', ctx.consoleSessions.attach(database.kind === 'postgres' ? database.url : null));
  await app.register(
    async (auth) => {
      // The /auth routes read plain JSON (and Fastify's text/plain, which the readers refuse as 400): any other
      // body is the 415 that names application/json, not the API's JSON:API media type.
      auth.addContentTypeParser('*', (_request, _payload, done) => done(new DomainError('ExtUnsupportedMediaType')));
      for (const route of ROUTES) route(auth, ctx);
    },
    { prefix: AUTH_PREFIX },
  );
}

/** The principal of the console session a request without a bearer key offers; null without a session cookie. */
export function sessionAuthentication(ctx: UsersContext) {
  return async (request: FastifyRequest): Promise<Principal | null> => {
    const credential = credentialOf(request);
    if (credential.token === undefined) return null;
    return principalOf(await signedInSession(ctx, credential));
  };
}
