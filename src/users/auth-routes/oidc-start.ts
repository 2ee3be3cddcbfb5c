import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.js';
import { beginSignIn } from '../oidc.js';
import { originOf } from './http.js';
import { CALLBACK, STATE_COOKIE, STATE_COOKIE_SECONDS, configured, navigationSchema, refuse, stateCookieOptions } from './oidc-flow.js';

export default function oidcStartRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.get('/oidc/start', {
    schema: navigationSchema('startSingleSignOn', "Single sign-on: sends the browser to the provider, with this browser's state in a cookie"),
    handler: async (request, reply) => {
      const oidc = configured(ctx);
      reply.header('cache-control', 'no-store');
      try {
        const { state, url } = await beginSignIn(ctx, oidc, originOf(ctx, request) + CALLBACK);
        reply.setCookie(STATE_COOKIE, state, { ...stateCookieOptions(request), maxAge: STATE_COOKIE_SECONDS });
        return reply.redirect(url, 302);
      } catch (error) {
        return refuse(request, reply, error);
      }
    },
  });
}
