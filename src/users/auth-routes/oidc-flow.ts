// Single sign-on (src/users/oidc.ts): the console's button leads to /auth/oidc/start, the provider sends the
// browser back to /auth/oidc/callback. Both are browser navigations, so every answer is a redirect: a refusal
// goes back to the console with a short code, never as an error page or a 500.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../errors.js';
import type { UsersContext } from '../context.js';
import { SsoRefused } from '../oidc.js';
import { cookieIsSecure } from './http.js';
import { NO_CREDENTIAL, authSchema } from './schema.js';

/** The state this browser left with; the callback must come back with the same. */
export const STATE_COOKIE = 'tapproof_oidc_state';
export const STATE_COOKIE_SECONDS = 10 * 60;
export const CALLBACK = '/auth/oidc/callback';
const CONSOLE = '/console/';

export function stateCookieOptions(request: FastifyRequest) {
  // Lax, not Strict: the provider's redirect back here is a navigation from another site, which a Strict cookie would miss.
  return { path: '/auth/oidc', httpOnly: true, sameSite: 'lax' as const, secure: cookieIsSecure(request) };
}

/** The configured provider; without one, these routes are not there (404). */
export function configured(ctx: UsersContext) {
  const oidc = ctx.config.console.oidc;
  if (!oidc) throw new DomainError('NotFound');
  return oidc;
}

export const signedInToConsole = (reply: FastifyReply) => reply.redirect(CONSOLE, 302);

export function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof SsoRefused)) {
    // Logged by class only: an unexpected error's message could quote what the provider sent.
    request.log.error({ reason: 'internal', error: error instanceof Error ? error.name : typeof error }, 'single sign-on failed');
    return reply.redirect(`${CONSOLE}?sign_in_error=internal`, 302);
  }
  request.log.warn({ reason: error.reason, underlying: error.underlying }, 'single sign-on refused');
  return reply.redirect(`${CONSOLE}?sign_in_error=${error.reason}`, 302);
}

/** A browser navigation's schema: always a redirect, 404 when single sign-on is not configured. */
export const navigationSchema = (operationId: string, summary: string) =>
  authSchema(
    operationId,
    summary,
    NO_CREDENTIAL,
    { 302: { description: 'To the provider, or back to the console (`?sign_in_error=<code>` on a refusal)' } },
    [404],
  );
