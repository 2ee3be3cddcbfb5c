// Redeeming a one-time link over /auth/links: throttled per client address (throttle.ts), and the token
// checked (a SHA-256 and one lookup) before anything costly, so that a made-up token costs the server
// next to nothing and a guesser soon waits.
import { problem, validationFailed } from '../errors.js';
import type { UsersContext } from './context.js';
import { passwordProblem } from './passwords.js';
import { setPasswordWithLink, userOfLink } from './service.js';
import type { OpenedSession, Visitor } from './sessions.js';
import { linkLimits, releaseAttempt, reserveAttempt } from './throttle.js';

/** The live link `token`'s user, purpose and expiry; an unknown, spent or expired link counts against the address. */
export async function checkedLink(ctx: UsersContext, token: string, address: string): ReturnType<typeof userOfLink> {
  const reservation = await reserveAttempt(ctx.db, linkLimits(address), ctx.clock.nowMicros());
  const link = await userOfLink(ctx.db.kysely, ctx, token);
  await releaseAttempt(ctx.db, reservation);
  return link;
}

/** Sets the password with a live link: the token first, then the password's rules, and only then scrypt. */
export async function redeemWithPassword(ctx: UsersContext, token: string, password: string, visitor: Visitor): Promise<OpenedSession> {
  await checkedLink(ctx, token, visitor.address);
  const why = passwordProblem(password);
  if (why) throw validationFailed([problem('password', why)]);
  return setPasswordWithLink(ctx, token, password, visitor);
}
