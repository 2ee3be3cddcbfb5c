// Where the /auth routes meet HTTP, and nothing below them does: the session's cookie (HttpOnly,
// SameSite=Strict, Secure except on plain-http loopback), the credential and visitor a request carries,
// the console's origin, and Retry-After on a throttled answer.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UsersContext } from '../context.js';
import type { OpenedSession, SessionCredential, Visitor } from '../sessions.js';
import { Throttled } from '../throttle.js';

export const SESSION_COOKIE = 'tapproof_session';
export const CSRF_HEADER = 'x-csrf-token';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Secure unless the console is reached over plain http on loopback, where browsers would drop a Secure cookie. */
export function cookieIsSecure(request: FastifyRequest): boolean {
  return request.protocol === 'https' || !LOOPBACK.has(request.hostname.replace(/:\d+$/, ''));
}

const sessionCookie = (request: FastifyRequest) => ({ path: '/', httpOnly: true, sameSite: 'strict' as const, secure: cookieIsSecure(request) });

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, opened: OpenedSession): void {
  reply.setCookie(SESSION_COOKIE, opened.token, { ...sessionCookie(request), maxAge: opened.maxAgeSeconds });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, sessionCookie(request));
}

/** The console session a request offers: its cookie, its X-CSRF-Token, and whether its method changes state. */
export function credentialOf(request: FastifyRequest): SessionCredential {
  const csrf = request.headers[CSRF_HEADER];
  return { token: request.cookies[SESSION_COOKIE], csrf: typeof csrf === 'string' ? csrf : undefined, changes: !SAFE_METHODS.has(request.method) };
}

export const visitorOf = (request: FastifyRequest): Visitor => ({ address: request.ip, requestId: request.id });

/** Where people reach the console: TAPPROOF_PUBLIC_URL, or the request's own origin. */
export const originOf = (ctx: UsersContext, request: FastifyRequest): string => ctx.config.console.publicUrl ?? `${request.protocol}://${request.host}`;

/** `work`'s answer; when it is throttled, the 429 carries the wait in Retry-After. */
export async function throttled<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Throttled) reply.header('retry-after', String(error.retryAfter));
    throw error;
  }
}
