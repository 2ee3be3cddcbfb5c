// Signing in with a password: throttled per account and per address, one answer for every failure
// (wrong password, unknown address, no password set, disabled account), and the same scrypt cost for
// each, so that neither the answer nor its time says whether an account exists.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { inTransaction } from '../db/transaction.js';
import { DomainError } from '../errors.js';
import type { UsersContext } from './context.js';
import { spendDecoy, verifyPassword } from './passwords.js';
import * as repo from './repository.js';
import { normalEmail } from './rules.js';
import { openSession, type LiveSession } from './sessions.js';
import { noteFailure, waitBeforeSignIn } from './throttle.js';

/** Refused for now: the seconds to wait go in Retry-After. */
export class Throttled extends DomainError {
  constructor(readonly retryAfter: number) {
    super('SignInThrottled', [], undefined, `try again in ${retryAfter} s`);
  }
}

export async function signInWithPassword(
  ctx: UsersContext,
  input: { email: string; password: string },
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<LiveSession> {
  const email = normalEmail(input.email);
  const now = ctx.clock.nowMicros();
  const wait = await waitBeforeSignIn(ctx.db.kysely, email, request.ip, now);
  if (wait > 0) throw new Throttled(wait);
  const user = await repo.findUserByEmail(ctx.db.kysely, email);
  const matches = user?.password_hash ? await verifyPassword(input.password, user.password_hash) : (await spendDecoy(input.password), false);
  if (!user || !matches || user.disabled_at !== null) {
    await noteFailure(ctx.db.kysely, email, request.ip, now);
    throw new DomainError('SignInFailed');
  }
  return inTransaction(ctx.db, (trx) => openSession(ctx, trx, user, 'password', request, reply));
}
