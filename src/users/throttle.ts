// Failed sign-ins slow down guessing, per account and per client address, across every process (the
// counts are rows of the shared database). An unknown account counts like a known one, so the answers
// say nothing of which addresses have accounts.
import type { Executor } from '../db/database.js';
import * as repo from './repository.js';

export const THROTTLE_WINDOW_MINUTES = 15;
/** Failures within the window after which an account, or an address, waits. */
export const ACCOUNT_FAILURES = 5;
export const ADDRESS_FAILURES = 20;

const WINDOW_MICROS = THROTTLE_WINDOW_MINUTES * 60 * 1_000_000;

const subjects = (email: string, address: string) => [
  { subject: `account:${email}`, limit: ACCOUNT_FAILURES },
  { subject: `address:${address}`, limit: ADDRESS_FAILURES },
];

/** Seconds until the account and the address may try again; 0 when both may try now. */
export async function waitBeforeSignIn(db: Executor, email: string, address: string, now: number): Promise<number> {
  let wait = 0;
  for (const { subject, limit } of subjects(email, address)) {
    const { count, oldest } = await repo.failuresSince(db, subject, now - WINDOW_MICROS);
    if (count >= limit && oldest !== null) wait = Math.max(wait, Math.ceil((oldest + WINDOW_MICROS - now) / 1_000_000));
  }
  return wait;
}

export async function noteFailure(db: Executor, email: string, address: string, now: number): Promise<void> {
  await repo.pruneFailures(db, now - WINDOW_MICROS);
  await repo.recordFailures(
    db,
    subjects(email, address).map((s) => s.subject),
    now,
  );
}
