// Single sign-on (src/users/oidc.ts): the console's button leads to /auth/oidc/start, the provider sends the
// browser back to /auth/oidc/callback. Both are browser navigations, so every answer is a redirect: a refusal
// goes back to the console with a short code, never as an error page or a 500.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../errors.js';
import type { UsersContext } from '../context.js';
import { SsoRefused, beginSignIn, finishSignIn, signInWithIdentity } from '../oidc.js';
import { cookieIsSecure } from '../sessions.js';
import { originOf } from './answers.js';

/** The state this browser left with; the callback must come back with the same. */
const STATE_COOKIE = 'tapproof_oidc_state';
const STATE_COOKIE_SECONDS = 10 * 60;
const CALLBACK = '/auth/oidc/callback';
const CONSOLE = '/console/';

function stateCookieOptions(request: FastifyRequest) {
  // Lax, not Strict: the provider's redirect back here is a navigation from another site, which a Strict cookie would miss.
  return { path: '/auth/oidc', httpOnly: true, sameSite: 'lax' as const, secure: cookieIsSecure(request) };
}

function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof SsoRefused)) {
    // Logged by class only: an unexpected error's message could quote what the provider sent.
    request.log.error({ reason: 'internal', error: error instanceof Error ? error.name : typeof error }, 'single sign-on failed');
    return reply.redirect(`${CONSOLE}?sign_in_error=internal`, 302);
  }
  request.log.warn({ reason: error.reason, underlying: error.underlying }, 'single sign-on refused');
  return reply.redirect(`${CONSOLE}?sign_in_error=${error.reason}`, 302);
}

export default function oidcRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const configured = () => {
    const oidc = ctx.config.console.oidc;
    if (!oidc) throw new DomainError('NotFound');
    return oidc;
  };

  app.get('/oidc/start', { schema: { hide: true } }, async (request, reply) => {
    const oidc = configured();
    reply.header('cache-control', 'no-store');
    try {
      const { state, url } = await beginSignIn(ctx, oidc, originOf(ctx, request) + CALLBACK);
      reply.setCookie(STATE_COOKIE, state, { ...stateCookieOptions(request), maxAge: STATE_COOKIE_SECONDS });
      return reply.redirect(url, 302);
    } catch (error) {
      return refuse(request, reply, error);
    }
  });

  // Warn, not info: the request log line would carry the URL, and with it the code and the state.
  app.get('/oidc/callback', { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
    const oidc = configured();
    reply.header('cache-control', 'no-store');
    const browserState = request.cookies[STATE_COOKIE];
    reply.clearCookie(STATE_COOKIE, stateCookieOptions(request));
    try {
      const query = new URL(request.url, 'http://callback.invalid').searchParams;
      const identity = await finishSignIn(ctx, oidc, query, browserState);
      await signInWithIdentity(ctx, oidc, identity, request, reply);
      return reply.redirect(CONSOLE, 302);
    } catch (error) {
      return refuse(request, reply, error);
    }
  });
}
