// People of a team: invited by an admin or the CLI with a one-time link, which sets a password or
// registers a passkey; changed (role, disabled) and reset by an admin. Every change records its audit
// event in its own transaction; user changes belong to the team, not to one of its worlds (mode null).
import { recordAudit } from '../audit/index.js';
import type { AuditOperation } from '../audit/index.js';
import type { Executor } from '../db/database.js';
import { inTransaction } from '../db/transaction.js';
import { DomainError, problem, refusal, validationFailed } from '../errors.js';
import { newId } from '../ids.js';
import * as teamsRepo from '../teams/index.js';
import type { Actor } from '../world.js';
import type { UsersContext } from './context.js';
import { hashPassword } from './passwords.js';
import * as usersRepo from './repository.js';
import type { UserRow } from './repository.js';
import { LINK_HOURS, normalEmail, type UserRole } from './rules.js';
import { hashToken, isToken, newToken } from './tokens.js';
import { changingSessions, openSession, type OpenedSession, type Visitor } from './sessions.js';
import { queueLink } from '../mail/index.js';

/** Someone acting on a team's users: an admin key or user, or the CLI. */
export interface TeamCaller {
  teamId: string;
  actor: Actor;
}

/**
 * How a new link reaches its person: in the answer, to hand over, or by email (docs/email.md), when the
 * server sends mail: then the link is made when the mail is sent and no answer or log ever holds it.
 */
export type LinkDelivery = 'answer' | 'email';
/** The link a delivery hands back: always one in the answer; none (null) when it is emailed. */
type Handed<D extends LinkDelivery> = D extends 'answer' ? IssuedLink : IssuedLink | null;

/** A one-time link as just made: its token is in the URL only, never stored. */
export interface IssuedLink {
  url: string;
  expiresAt: number;
}

const record = (trx: Executor, caller: TeamCaller, at: number, operation: AuditOperation, userId: string, changes: Record<string, unknown> | null) =>
  recordAudit(trx, { teamId: caller.teamId, mode: null, actor: caller.actor }, at, [{ operation, resourceId: userId, changes }]);

/** The console's page that redeems a link; the token rides in the fragment, which no server or log sees. */
export const linkUrl = (origin: string, token: string): string => `${origin}/console/welcome#${token}`;

export async function issueLink(
  trx: Executor,
  ctx: Pick<UsersContext, 'clock'>,
  userId: string,
  purpose: 'invite' | 'reset',
  origin: string,
): Promise<IssuedLink> {
  await usersRepo.deleteLinks(trx, userId);
  const token = newToken();
  const now = ctx.clock.nowMicros();
  const expiresAt = now + LINK_HOURS * 3600 * 1_000_000;
  await usersRepo.insertLink(trx, { token_hash: hashToken(token), user_id: userId, purpose, created_at: now, expires_at: expiresAt });
  return { url: linkUrl(origin, token), expiresAt };
}

async function handOver(trx: Executor, ctx: UsersContext, user: UserRow, purpose: 'invite' | 'reset', origin: string, delivery: LinkDelivery) {
  if (delivery === 'answer') return issueLink(trx, ctx, user.id, purpose, origin);
  // No live link until the mail goes: an older one ends now, as a new link would end it.
  await usersRepo.deleteLinks(trx, user.id);
  await queueLink(trx, user, purpose, ctx.clock.nowMicros());
  return null;
}

export async function inviteUser<D extends LinkDelivery = 'answer'>(
  ctx: UsersContext,
  caller: TeamCaller,
  input: { email: string; role: UserRole },
  origin: string,
  delivery: D = 'answer' as D,
): Promise<{ user: UserRow; link: Handed<D> }> {
  const email = normalEmail(input.email);
  return inTransaction(ctx.db, async (trx) => {
    if (!(await teamsRepo.findTeam(trx, caller.teamId))) throw refusal(`no team ${caller.teamId}`);
    if (await usersRepo.findUserByEmail(trx, email)) throw new DomainError('UserExists', [], `${email} has an account`);
    const user: UserRow = {
      id: newId('usr'),
      team_id: caller.teamId,
      email,
      role: input.role,
      password_hash: null,
      oidc_subject: null,
      created_at: ctx.clock.nowMicros(),
      disabled_at: null,
      last_sign_in_at: null,
    };
    await usersRepo.insertUser(trx, user);
    const link = await handOver(trx, ctx, user, 'invite', origin, delivery);
    await record(trx, caller, user.created_at, 'user.invite', user.id, { email, role: user.role });
    return { user, link: link as Handed<D> };
  });
}

/** Changes a user's role or disables or enables them; disabling ends every session. */
export async function updateUser(ctx: UsersContext, caller: TeamCaller, userId: string, change: { role?: UserRole; disabled?: boolean }): Promise<UserRow> {
  return changingSessions(ctx, async (trx, changed) => {
    await usersRepo.lockTeamUsers(trx, caller.teamId);
    const user = await usersRepo.findUserInTeam(trx, userId, caller.teamId);
    if (!user) throw new DomainError('NotFound');
    const now = ctx.clock.nowMicros();
    const set: Partial<UserRow> = {};
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (change.role !== undefined && change.role !== user.role) {
      set.role = change.role;
      changes.role = { from: user.role, to: change.role };
    }
    if (change.disabled !== undefined && change.disabled !== (user.disabled_at !== null)) {
      set.disabled_at = change.disabled ? now : null;
      changes.disabled = { from: !change.disabled, to: change.disabled };
    }
    // An admin who could demote or disable the last admin would lock the team out of its own console.
    if ((set.role !== undefined && user.role === 'admin') || (set.disabled_at != null && user.role === 'admin')) {
      const admins = (await usersRepo.listUsers(trx, caller.teamId)).filter((u) => u.role === 'admin' && u.disabled_at === null && u.id !== user.id);
      if (admins.length === 0) throw validationFailed([problem('role', 'the team would have no enabled admin left')]);
    }
    if (Object.keys(set).length === 0) return user;
    await usersRepo.updateUser(trx, user.id, set);
    // A new role or a disabled account takes effect now, not when a session ends.
    await usersRepo.revokeSessionsOf(trx, user.id, now);
    changed(user.id);
    await record(trx, caller, now, 'user.update', user.id, changes);
    return { ...user, ...set };
  });
}

/**
 * A user who lost their password or passkey: both are removed, every session ends, and a new one-time
 * link lets them set new ones. The account keeps its id, team, role and history.
 */
export async function resetUser<D extends LinkDelivery = 'answer'>(
  ctx: UsersContext,
  caller: TeamCaller,
  userId: string,
  origin: string,
  delivery: D = 'answer' as D,
): Promise<{ user: UserRow; link: Handed<D> }> {
  return changingSessions(ctx, async (trx, changed) => {
    const user = await usersRepo.findUserInTeam(trx, userId, caller.teamId);
    if (!user) throw new DomainError('NotFound');
    const now = ctx.clock.nowMicros();
    await usersRepo.updateUser(trx, user.id, { password_hash: null });
    const passkeys = await usersRepo.deletePasskeysOf(trx, user.id);
    const sessions = await usersRepo.revokeSessionsOf(trx, user.id, now);
    changed(user.id);
    const link = await handOver(trx, ctx, user, 'reset', origin, delivery);
    await record(trx, caller, now, 'user.reset', user.id, {
      password: user.password_hash === null ? 'none' : 'removed',
      passkeys_removed: passkeys,
      sessions_ended: sessions,
    });
    return { user: { ...user, password_hash: null }, link: link as Handed<D> };
  });
}

/** The user a live link belongs to, or LinkInvalid: unknown, used, expired, or its user disabled. */
export async function userOfLink(trx: Executor, ctx: UsersContext, token: unknown): Promise<{ user: UserRow; purpose: 'invite' | 'reset'; expiresAt: number }> {
  if (!isToken(token)) throw new DomainError('LinkInvalid');
  const link = await usersRepo.findLink(trx, hashToken(token));
  if (!link || link.expires_at <= ctx.clock.nowMicros()) throw new DomainError('LinkInvalid');
  const user = await usersRepo.findUser(trx, link.user_id);
  if (!user || user.disabled_at !== null) throw new DomainError('LinkInvalid');
  return { user, purpose: link.purpose, expiresAt: link.expires_at };
}

/** Spends a live link in `trx` and returns its user; of two requests redeeming one link, the second is LinkInvalid. */
export async function spendLink(trx: Executor, ctx: UsersContext, token: unknown): Promise<UserRow> {
  const { user } = await userOfLink(trx, ctx, token);
  if ((await usersRepo.deleteLinks(trx, user.id)) === 0) throw new DomainError('LinkInvalid');
  return user;
}

/** The actor of a person acting on their own account (redeeming a link, signing in). */
export const userActor = (userId: string, visitor: Visitor): Actor => ({ type: 'user', id: userId, address: visitor.address, requestId: visitor.requestId });

/** Redeems a link by setting the password: the link is spent and a session opens, in one transaction. */
export async function setPasswordWithLink(ctx: UsersContext, token: unknown, password: string, visitor: Visitor): Promise<OpenedSession> {
  // Hashed before the transaction: scrypt takes tens of milliseconds, a transaction should not. The token is
  // checked before this is called (links.ts, redeemWithPassword), so a made-up one never costs a scrypt.
  const hash = await hashPassword(password);
  return inTransaction(ctx.db, async (trx) => {
    const user = await spendLink(trx, ctx, token);
    const now = ctx.clock.nowMicros();
    await usersRepo.updateUser(trx, user.id, { password_hash: hash });
    await record(trx, { teamId: user.team_id, actor: userActor(user.id, visitor) }, now, 'user.set_password', user.id, { password: 'set' });
    return openSession(ctx, trx, { ...user, password_hash: hash }, 'password', visitor);
  });
}

/** A user as the API shows them: the row and how many passkeys they have. */
export interface ListedUser {
  user: UserRow;
  passkeys: number;
}

/** The users `users` with their passkey counts. */
export async function withPasskeys(db: Executor, users: UserRow[]): Promise<ListedUser[]> {
  const passkeys = await usersRepo.passkeyCounts(
    db,
    users.map((u) => u.id),
  );
  return users.map((user) => ({ user, passkeys: passkeys.get(user.id) ?? 0 }));
}

/** A team's users by email, with their passkey counts. */
export async function listTeamUsers(db: Executor, teamId: string): Promise<ListedUser[]> {
  return withPasskeys(db, await usersRepo.listUsers(db, teamId));
}
