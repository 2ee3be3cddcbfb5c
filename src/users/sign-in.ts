// Signing in with a password: throttled (throttle.ts), one answer for every failure (wrong password,
// unknown address, no password set, disabled account), and the same scrypt cost for each, so that neither
// the answer nor its time says whether an account exists.
import { inTransaction } from '../db/transaction.js';
import { DomainError } from '../errors.js';
import type { UsersContext } from './context.js';
import { passwordTooLong, spendDecoy, verifyPassword } from './passwords.js';
import * as usersRepo from './repository.js';
import { emailProblem, normalEmail } from './rules.js';
import { openSession, type OpenedSession, type Visitor } from './sessions.js';
import { releaseAttempt, reserveAttempt, signInLimits } from './throttle.js';

export { Throttled } from './throttle.js';

/** Whether `password` is the password of `user`; scrypt runs once either way, unless no password could match. */
async function matches(user: { password_hash: string | null } | undefined, password: string): Promise<boolean> {
  // No password ever set is longer (passwords.ts): it fails as a wrong one does, without the scrypt it would cost.
  if (passwordTooLong(password)) return false;
  if (user?.password_hash) return verifyPassword(password, user.password_hash);
  await spendDecoy(password);
  return false;
}

export async function signInWithPassword(ctx: UsersContext, input: { email: string; password: string }, visitor: Visitor): Promise<OpenedSession> {
  const email = normalEmail(input.email);
  // An address no account can have is never looked up (PostgreSQL refuses a NUL in it: a 500, not a 401).
  const possible = emailProblem(email) === null ? email : null;
  // Counted before the password is checked: attempts made at once cannot all slip under the limit.
  const reservation = await reserveAttempt(ctx.db, signInLimits(possible, visitor.address), ctx.clock.nowMicros());
  const user = possible === null ? undefined : await usersRepo.findUserByEmail(ctx.db.kysely, possible);
  if (!(await matches(user, input.password)) || !user || user.disabled_at !== null) throw new DomainError('SignInFailed');
  await releaseAttempt(ctx.db, reservation);
  return inTransaction(ctx.db, (trx) => openSession(ctx, trx, user, 'password', visitor));
}
