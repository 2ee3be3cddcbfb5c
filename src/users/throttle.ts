// Guessing is slowed per account from one client address, per account from anywhere and per address,
// across every process (the counts are rows of the shared database). An unknown account counts like a
// known one, so the answers say nothing of which addresses have accounts.
//
// An attempt is counted (reserved) before its password or token is checked, in a transaction that holds
// its subjects, so that many attempts at once cannot all pass a count taken before any of them failed.
// A success takes its reservation back; a failure leaves it standing as the failure.
//
// The small limit is per account and address: five wrong tries from one place cannot lock the owner out
// everywhere (NIST SP 800-63B § 5.2.2 lets the limit fall on what an attacker controls). The account-wide
// cap stops a guesser who spreads over many addresses; the per-address cap one who spreads over accounts.
import type { Db } from '../db/database.js';
import { inTransaction } from '../db/transaction.js';
import { DomainError } from '../errors.js';
import * as throttleRepo from './throttle-repository.js';

export const THROTTLE_WINDOW_MINUTES = 15;
/** Failures within the window after which an account from one address waits. */
export const ACCOUNT_ADDRESS_FAILURES = 5;
/** Failures within the window, from any addresses, after which an account waits. */
export const ACCOUNT_FAILURES = 100;
/** Failures within the window, over any accounts, after which an address waits. */
export const ADDRESS_FAILURES = 20;
/** Failed one-time links (unknown, spent or expired) within the window after which an address waits. */
export const LINK_ADDRESS_FAILURES = 20;

const WINDOW_MICROS = THROTTLE_WINDOW_MINUTES * 60 * 1_000_000;

interface Limit {
  subject: string;
  limit: number;
}

const addressLimit = (address: string): Limit => ({ subject: `address:${address}`, limit: ADDRESS_FAILURES });

/**
 * A sign-in's counters. `email` null: an address no account can have (emailProblem: a control character, which
 * PostgreSQL would refuse to store in a subject), counted against the client's address alone.
 */
export const signInLimits = (email: string | null, address: string): Limit[] =>
  email === null
    ? [addressLimit(address)]
    : [
        { subject: `account-address:${email} ${address}`, limit: ACCOUNT_ADDRESS_FAILURES },
        { subject: `account:${email}`, limit: ACCOUNT_FAILURES },
        addressLimit(address),
      ];

export const linkLimits = (address: string): Limit[] => [{ subject: `link-address:${address}`, limit: LINK_ADDRESS_FAILURES }];

/** Refused for now: the seconds to wait go in Retry-After. */
export class Throttled extends DomainError {
  constructor(readonly retryAfter: number) {
    super('SignInThrottled', [], undefined, `try again in ${retryAfter} s`);
  }
}

/** The counted attempt of each subject: its time is unique within the subject, so it can be taken back alone. */
export type Reservation = { subject: string; at: number }[];

/** Counts an attempt against every limit, or throws Throttled (counting nothing) when one is reached. */
export async function reserveAttempt(db: Db, limits: Limit[], now: number): Promise<Reservation> {
  const outcome = await inTransaction(db, async (trx): Promise<{ wait: number } | { reservation: Reservation }> => {
    await throttleRepo.lockSubjects(
      trx,
      limits.map((l) => l.subject),
    );
    await throttleRepo.pruneFailures(trx, now - WINDOW_MICROS);
    let wait = 0;
    const reservation: Reservation = [];
    for (const { subject, limit } of limits) {
      const { count, oldest, newest } = await throttleRepo.failuresSince(trx, subject, now - WINDOW_MICROS);
      if (count >= limit && oldest !== null) wait = Math.max(wait, Math.max(1, Math.ceil((oldest + WINDOW_MICROS - now) / 1_000_000)));
      // Two attempts within one microsecond (or a test clock standing still) still get times of their own.
      reservation.push({ subject, at: newest !== null && newest >= now ? newest + 1 : now });
    }
    if (wait > 0) return { wait };
    for (const { subject, at } of reservation) await throttleRepo.insertFailure(trx, subject, at);
    return { reservation };
  });
  if ('wait' in outcome) throw new Throttled(outcome.wait);
  return outcome.reservation;
}

/** Takes back a reservation: the attempt succeeded, so it is no failure. */
export async function releaseAttempt(db: Db, reservation: Reservation): Promise<void> {
  await inTransaction(db, async (trx) => {
    for (const { subject, at } of reservation) await throttleRepo.deleteFailure(trx, subject, at);
  });
}
