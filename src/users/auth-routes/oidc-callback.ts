import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.js';
import { finishSignIn, signInWithIdentity } from '../oidc.js';
import { setSessionCookie, visitorOf } from './http.js';
import { STATE_COOKIE, configured, navigationSchema, refuse, signedInToConsole, stateCookieOptions } from './oidc-flow.js';

export default function oidcCallbackRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.get('/oidc/callback', {
    schema: navigationSchema('finishSingleSignOn', 'Single sign-on: where the provider sends the browser back; signs in and sets the session cookie'),
    // Warn, not info: the request log line would carry the URL, and with it the code and the state.
    logLevel: 'warn',
    handler: async (request, reply) => {
      const oidc = configured(ctx);
      reply.header('cache-control', 'no-store');
      const browserState = request.cookies[STATE_COOKIE];
      reply.clearCookie(STATE_COOKIE, stateCookieOptions(request));
      try {
        const query = new URL(request.url, 'http://callback.invalid').searchParams;
        const identity = await finishSignIn(ctx, oidc, query, browserState);
        setSessionCookie(request, reply, await signInWithIdentity(ctx, oidc, identity, visitorOf(request)));
        return signedInToConsole(reply);
      } catch (error) {
        return refuse(request, reply, error);
      }
    },
  });
}
