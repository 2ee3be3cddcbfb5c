// Console sessions: a random token in an HttpOnly, SameSite=Strict cookie (Secure except on plain-http
// loopback), a server-side row that can be revoked, an idle and an absolute expiry, and a CSRF token
// every state-changing request made with the cookie must echo in X-CSRF-Token.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../world.js';
import type { UsersContext } from './context.js';
import * as usersRepo from './repository.js';
import type { ConsoleSessionRow, UserRow } from './repository.js';
import { hashToken, isToken, newToken } from './tokens.js';

export const SESSION_COOKIE = 'tapproof_session';
export const CSRF_HEADER = 'x-csrf-token';
/**
 * How often a session's last use is written: a busy console is not a write per request, yet a session
 * idles out within a twentieth of the idle setting of when it was last used (never more than a minute).
 */
export const touchEveryMicros = (idleMicros: number): number => Math.min(60 * 1_000_000, Math.floor(idleMicros / 20));

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Secure unless the console is reached over plain http on loopback, where browsers would drop a Secure cookie. */
export function cookieIsSecure(request: FastifyRequest): boolean {
  return request.protocol === 'https' || !LOOPBACK.has(request.hostname.replace(/:\d+$/, ''));
}

function cookieOptions(request: FastifyRequest) {
  return { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: cookieIsSecure(request) };
}

/** Opens a session for `user` and sets its cookie; the user's first world is sandbox. */
export async function openSession(
  ctx: UsersContext,
  trx: Executor,
  user: UserRow,
  method: ConsoleSessionRow['method'],
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<LiveSession> {
  const now = ctx.clock.nowMicros();
  const token = newToken();
  const session: ConsoleSessionRow = {
    token_hash: hashToken(token),
    id: newId('uss'),
    user_id: user.id,
    mode: 'sandbox',
    csrf_token: newToken(),
    method,
    address: request.ip,
    created_at: now,
    last_seen_at: now,
    expires_at: now + ctx.config.console.sessionMaxHours * 3600 * 1_000_000,
    revoked_at: null,
  };
  await usersRepo.insertSession(trx, session);
  await usersRepo.updateUser(trx, user.id, { last_sign_in_at: now });
  reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions(request), maxAge: ctx.config.console.sessionMaxHours * 3600 });
  const idle = ctx.config.console.sessionIdleMinutes * 60 * 1_000_000;
  return {
    tokenHash: session.token_hash,
    id: session.id,
    userId: user.id,
    teamId: user.team_id,
    email: user.email,
    role: user.role,
    mode: session.mode,
    csrf: session.csrf_token,
    method,
    expiresAt: Math.min(session.expires_at, now + idle),
  };
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
}

/** The session the request's cookie names: live, its user enabled; null otherwise. */
export interface LiveSession {
  tokenHash: string;
  id: string;
  userId: string;
  teamId: string;
  email: string;
  role: UserRow['role'];
  mode: Mode;
  csrf: string;
  method: ConsoleSessionRow['method'];
  expiresAt: number;
}

export async function liveSession(ctx: UsersContext, request: FastifyRequest): Promise<LiveSession | null> {
  const token = request.cookies[SESSION_COOKIE];
  if (!isToken(token)) return null;
  const tokenHash = hashToken(token);
  const row = await usersRepo.findSession(ctx.db.kysely, tokenHash);
  const now = ctx.clock.nowMicros();
  const idle = ctx.config.console.sessionIdleMinutes * 60 * 1_000_000;
  if (!row || row.revoked_at !== null || row.disabled_at !== null || row.expires_at <= now || row.last_seen_at + idle <= now) return null;
  if (now - row.last_seen_at >= touchEveryMicros(idle)) await usersRepo.touchSession(ctx.db.kysely, tokenHash, now);
  return {
    tokenHash,
    id: row.id,
    userId: row.user_id,
    teamId: row.team_id,
    email: row.email,
    role: row.role,
    mode: row.mode,
    csrf: row.csrf_token,
    method: row.method,
    expiresAt: Math.min(row.expires_at, Math.max(now, row.last_seen_at) + idle),
  };
}

/** The request's live session with its CSRF token checked; NotSignedIn without one. */
export async function signedInSession(ctx: UsersContext, request: FastifyRequest): Promise<LiveSession> {
  const session = await liveSession(ctx, request);
  if (!session) throw new DomainError('NotSignedIn');
  checkCsrf(request, session);
  return session;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Refuses a state-changing request whose X-CSRF-Token is not the session's (constant-time). */
export function checkCsrf(request: FastifyRequest, session: LiveSession): void {
  if (SAFE_METHODS.has(request.method)) return;
  const sent = request.headers[CSRF_HEADER];
  const given = Buffer.from(typeof sent === 'string' ? sent : '');
  const expected = Buffer.from(session.csrf);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new DomainError('CsrfRejected');
}

/** The session as the API's principal: its user's team and role, in the world the session is in. */
export const principalOf = (session: LiveSession): Principal => ({
  via: 'user',
  id: session.userId,
  teamId: session.teamId,
  mode: session.mode,
  role: session.role,
  expiresAt: null,
});

/** Signs a session out: its row is revoked, so the cookie names nothing on any server. */
export async function endSession(ctx: UsersContext, session: LiveSession): Promise<void> {
  await usersRepo.revokeSession(ctx.db.kysely, session.tokenHash, ctx.clock.nowMicros());
}

/** The session acting in `mode` from its next request on. */
export async function switchMode(ctx: UsersContext, session: LiveSession, mode: Mode): Promise<LiveSession> {
  await usersRepo.setSessionMode(ctx.db.kysely, session.tokenHash, mode);
  return { ...session, mode };
}

/** The user a live session belongs to; NotSignedIn when the account is gone. */
export async function userOfSession(ctx: UsersContext, session: LiveSession): Promise<UserRow> {
  const user = await usersRepo.findUser(ctx.db.kysely, session.userId);
  if (!user) throw new DomainError('NotSignedIn');
  return user;
}
