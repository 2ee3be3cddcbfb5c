// Console sessions: a random token (the routes carry it in an HttpOnly, SameSite=Strict cookie,
// auth-routes/cookies.ts), a server-side row that can be revoked, an idle and an absolute expiry, and a
// CSRF token every state-changing request made with the session must echo. Nothing here knows of HTTP:
// the routes hand in the credential a request carries and set the cookie of a session opened here.
import { timingSafeEqual } from 'node:crypto';
import { notifyInTransaction, touchAfterCommit } from '../db/change-feed.js';
import type { Executor } from '../db/database.js';
import { inTransaction, type RetryOptions } from '../db/transaction.js';
import type { Mode } from '../db/schema.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../world.js';
import type { UsersContext } from './context.js';
import * as usersRepo from './repository.js';
import type { ConsoleSessionRow, SessionRecord, UserRow } from './repository.js';
import { sessionsFeed } from './session-cache.js';
import { hashToken, isToken, newToken } from './tokens.js';

/**
 * How often a session's last use is written: a busy console is not a write per request, yet a session
 * idles out within a twentieth of the idle setting of when it was last used (never more than a minute).
 */
export const touchEveryMicros = (idleMicros: number): number => Math.min(60 * 1_000_000, Math.floor(idleMicros / 20));

/** Who is at the other end of a sign-in: the client's address and the request, for the session row and the audit log. */
export interface Visitor {
  address: string;
  requestId: string;
}

/** A session just opened: the token its cookie must carry (shown only here), and for how long. */
export interface OpenedSession {
  session: LiveSession;
  token: string;
  maxAgeSeconds: number;
}

/** Opens a session for `user`; the user's first world is sandbox. */
export async function openSession(
  ctx: UsersContext,
  trx: Executor,
  user: UserRow,
  method: ConsoleSessionRow['method'],
  visitor: Visitor,
): Promise<OpenedSession> {
  const now = ctx.clock.nowMicros();
  const token = newToken();
  const session: ConsoleSessionRow = {
    token_hash: hashToken(token),
    id: newId('uss'),
    user_id: user.id,
    mode: 'sandbox',
    csrf_token: newToken(),
    method,
    address: visitor.address,
    created_at: now,
    last_seen_at: now,
    expires_at: now + ctx.config.console.sessionMaxHours * 3600 * 1_000_000,
    revoked_at: null,
  };
  await usersRepo.insertSession(trx, session);
  await usersRepo.updateUser(trx, user.id, { last_sign_in_at: now });
  const idle = ctx.config.console.sessionIdleMinutes * 60 * 1_000_000;
  const live: LiveSession = {
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
  return { session: live, token, maxAgeSeconds: ctx.config.console.sessionMaxHours * 3600 };
}

/** What a request offers as a console session: the cookie's token, the CSRF token it echoes, and whether it changes state. */
export interface SessionCredential {
  token: string | undefined;
  csrf: string | undefined;
  changes: boolean;
}

/** A session that is live, its user enabled. */
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

const isLive = (record: SessionRecord, now: number, idle: number) =>
  record.revoked_at === null && record.disabled_at === null && record.expires_at > now && record.last_seen_at + idle > now;

/**
 * The session `token` names, when live and its user enabled; null otherwise. Read from this process's cache
 * (session-cache.ts) when it holds the session live, else from the database.
 */
export async function liveSession(ctx: UsersContext, token: string | undefined): Promise<LiveSession | null> {
  if (!isToken(token)) return null;
  const tokenHash = hashToken(token);
  const now = ctx.clock.nowMicros();
  const idle = ctx.config.console.sessionIdleMinutes * 60 * 1_000_000;
  let record = ctx.consoleSessions.get(tokenHash);
  if (record === undefined || !isLive(record, now, idle)) {
    const stamp = ctx.consoleSessions.stamp();
    record = await usersRepo.findSession(ctx.db.kysely, tokenHash);
    if (!record || !isLive(record, now, idle)) {
      ctx.consoleSessions.drop(tokenHash, stamp);
      return null;
    }
    ctx.consoleSessions.set(tokenHash, record, stamp);
  }
  if (now - record.last_seen_at >= touchEveryMicros(idle)) {
    await usersRepo.touchSession(ctx.db.kysely, tokenHash, now);
    // The cached record is this process's view of the session: it saw this use.
    record.last_seen_at = now;
  }
  return {
    tokenHash,
    id: record.id,
    userId: record.user_id,
    teamId: record.team_id,
    email: record.email,
    role: record.role,
    mode: record.mode,
    csrf: record.csrf_token,
    method: record.method,
    expiresAt: Math.min(record.expires_at, Math.max(now, record.last_seen_at) + idle),
  };
}

/** The credential's live session with its CSRF token checked; NotSignedIn without one. */
export async function signedInSession(ctx: UsersContext, credential: SessionCredential): Promise<LiveSession> {
  const session = await liveSession(ctx, credential.token);
  if (!session) throw new DomainError('NotSignedIn');
  checkCsrf(credential, session);
  return session;
}

/** Refuses a state-changing request whose CSRF token is not the session's (constant-time). */
export function checkCsrf(credential: SessionCredential, session: LiveSession): void {
  if (!credential.changes) return;
  const given = Buffer.from(credential.csrf ?? '');
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

/** How long a change waits at most for every server to drop the sessions it changed. */
const DELIVERY_TIMEOUT_MS = 2_000;

/**
 * Runs `work`, a transaction that may end or rewrite sessions: it names each user whose sessions it changed
 * (`changed`), and the change is announced to every process (session-cache.ts) in the transaction. It answers
 * once every listening process has dropped those users' sessions, so that a request sent after the answer
 * meets the change on any server.
 */
export async function changingSessions<T>(
  ctx: UsersContext,
  work: (trx: Executor, changed: (userId: string) => void) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const address = sessionsFeed(ctx.db);
  let users = new Set<string>();
  let delivered: Promise<void>[] = [];
  const result = await inTransaction(
    ctx.db,
    async (trx) => {
      users = new Set();
      delivered = [];
      const value = await work(trx, (userId) => users.add(userId));
      for (const userId of users) {
        await notifyInTransaction(ctx.db, trx, address, userId);
        delivered.push((await ctx.consoleSessions.delivery(trx, userId, DELIVERY_TIMEOUT_MS)).delivered);
      }
      return value;
    },
    options,
  );
  if (users.size === 0) return result;
  for (const userId of users) ctx.consoleSessions.evictUser(userId);
  touchAfterCommit(ctx.db, address, ctx.clock.nowMicros());
  await Promise.all(delivered);
  return result;
}

/** Signs a session out: its row is revoked, so the cookie names nothing on any server. */
export async function endSession(ctx: UsersContext, session: LiveSession): Promise<void> {
  await changingSessions(ctx, async (trx, changed) => {
    await usersRepo.revokeSession(trx, session.tokenHash, ctx.clock.nowMicros());
    changed(session.userId);
  });
}

/** The session acting in `mode` from its next request on, on every server. */
export async function switchMode(ctx: UsersContext, session: LiveSession, mode: Mode): Promise<LiveSession> {
  await changingSessions(ctx, async (trx, changed) => {
    await usersRepo.setSessionMode(trx, session.tokenHash, mode);
    changed(session.userId);
  });
  return { ...session, mode };
}

/** The user a live session belongs to; NotSignedIn when the account is gone. */
export async function userOfSession(ctx: UsersContext, session: LiveSession): Promise<UserRow> {
  const user = await usersRepo.findUser(ctx.db.kysely, session.userId);
  if (!user) throw new DomainError('NotSignedIn');
  return user;
}
