// The extension API's writes, a kind of group-commit write (src/db/group-commit.ts)
// beside scans: on a SQLite file the commit thread takes the commit's fsync off the
// event loop and the writes of concurrent requests share one commit (docs/throughput.md#group-commit). Plain data, so
// that a write can cross to that thread; each is answered after its commit.
import type { Executor } from '../db/database.js';
import type { GroupCommit, WriteKind } from '../db/group-commit.js';
import * as extensionRepo from './repository.js';
import type { ChallengeRow, OwnershipRow } from './repository.js';

export type ExtensionWrite =
  /** A new challenge, after deleting those expired before `pruneBefore` (when set). */
  | { kind: 'challenge'; row: ChallengeRow; pruneBefore: number | null }
  /** A refused proof takes its challenge. */
  | { kind: 'use-challenge'; challengeId: string; now: number }
  /**
   * A successful proof takes its challenge and records the owner, both or neither: the first owner
   * when `replaces` is null, else in place of the owner whose proof (request id) is `replaces`.
   */
  | { kind: 'ownership'; challengeId: string; now: number; row: OwnershipRow; replaces: string | null };

/** `challenge-used`: another proof (or time) took the challenge first; `owned`: the recorded owner is not the one the proof was judged against. */
export type ExtensionOutcome = 'done' | 'challenge-used' | 'owned';

/** Commits one write with whatever else is queued; resolves once it is durable. */
export const commitExtensionWrite = (commits: GroupCommit, write: ExtensionWrite): Promise<ExtensionOutcome> => commits.submit(write);

/** Applied one after the other, in arrival order, in the batch's transaction. */
export const extensionWrites: WriteKind<ExtensionWrite, ExtensionOutcome> = {
  kinds: ['challenge', 'use-challenge', 'ownership'],
  async write(trx, writes) {
    const outcomes: ExtensionOutcome[] = [];
    for (const write of writes) outcomes.push(await applyExtensionWrite(trx, write));
    return outcomes;
  },
};

/** Runs one write in the caller's transaction (one writer at a time on SQLite; row locks on PostgreSQL). */
export async function applyExtensionWrite(trx: Executor, write: ExtensionWrite): Promise<ExtensionOutcome> {
  switch (write.kind) {
    case 'challenge':
      if (write.pruneBefore !== null) await extensionRepo.deleteExpiredChallenges(trx, write.pruneBefore);
      await extensionRepo.insertChallenge(trx, write.row);
      return 'done';
    case 'use-challenge':
      return (await extensionRepo.useChallenge(trx, write.challengeId, write.now)) ? 'done' : 'challenge-used';
    case 'ownership': {
      if (!(await extensionRepo.useChallenge(trx, write.challengeId, write.now))) return 'challenge-used';
      if (await extensionRepo.saveOwnership(trx, write.row, write.replaces)) return 'done';
      // Another proof changed the owner meanwhile: this challenge stays open as if
      // the proof had not been made (it shares the batch's transaction, so it
      // cannot roll back alone).
      await extensionRepo.unuseChallenge(trx, write.challengeId);
      return 'owned';
    }
  }
}
