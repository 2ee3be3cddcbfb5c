// The extension API's writes, committed by the group commit of scans
// (src/verifications/scan-writer.ts): on a SQLite file its thread takes the
// commit's fsync off the event loop and the writes of concurrent requests share
// one commit (issue #9). Plain data, so that a write can cross to that thread;
// each is answered after its commit, as before.
import type { Executor } from '../db/database.js';
import { deleteExpiredChallenges, insertChallenge, saveOwnership, unuseChallenge, useChallenge, type ChallengeRow, type OwnershipRow } from './repository.js';

export type ExtensionWrite =
  /** A new challenge, after deleting those expired before `pruneBefore` (when set). */
  | { kind: 'challenge'; row: ChallengeRow; pruneBefore: number | null }
  /** A refused proof takes its challenge. */
  | { kind: 'use-challenge'; challengeId: string; now: number }
  /** A successful proof takes its challenge and records the owner, both or neither. */
  | { kind: 'ownership'; challengeId: string; now: number; row: OwnershipRow };

/** `challenge-used`: another proof (or time) took the challenge first; `owned`: the verification already has an owner. */
export type ExtensionOutcome = 'done' | 'challenge-used' | 'owned';

const KINDS = new Set<string>(['challenge', 'use-challenge', 'ownership']);
export const isExtensionWrite = (write: { kind: string }): write is ExtensionWrite => KINDS.has(write.kind);

/** Runs one write in the caller's transaction (one writer at a time on SQLite; row locks on PostgreSQL). */
export async function applyExtensionWrite(trx: Executor, write: ExtensionWrite): Promise<ExtensionOutcome> {
  switch (write.kind) {
    case 'challenge':
      if (write.pruneBefore !== null) await deleteExpiredChallenges(trx, write.pruneBefore);
      await insertChallenge(trx, write.row);
      return 'done';
    case 'use-challenge':
      return (await useChallenge(trx, write.challengeId, write.now)) ? 'done' : 'challenge-used';
    case 'ownership':
      if (!(await useChallenge(trx, write.challengeId, write.now))) return 'challenge-used';
      if (await saveOwnership(trx, write.row)) return 'done';
      // Two challenges proven at once: the first recorded owner stays, and this
      // challenge stays open as if the proof had not been made (its own
      // transaction used to roll back; here it shares the batch's).
      await unuseChallenge(trx, write.challengeId);
      return 'owned';
  }
}
