// The extension API's writes, committed by the group commit of scans
// (src/verifications/scan-writer.ts): on a SQLite file its thread takes the
// commit's fsync off the event loop and the writes of concurrent requests share
// one commit (issue #9). Plain data, so that a write can cross to that thread;
// each is answered after its commit, as before.
import { sql } from 'kysely';
import { onPostgres, type Executor } from '../db/database.js';
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
    case 'ownership': {
      const { used, saved } = onPostgres(trx) ? await useAndSave(trx, write) : await useThenSave(trx, write);
      if (!used) return 'challenge-used';
      if (saved) return 'done';
      // Two challenges proven at once: the first recorded owner stays, and this
      // challenge stays open as if the proof had not been made (its own
      // transaction used to roll back; here it shares the batch's).
      await unuseChallenge(trx, write.challengeId);
      return 'owned';
    }
  }
}

type OwnershipWrite = Extract<ExtensionWrite, { kind: 'ownership' }>;

async function useThenSave(trx: Executor, write: OwnershipWrite): Promise<{ used: boolean; saved: boolean }> {
  if (!(await useChallenge(trx, write.challengeId, write.now))) return { used: false, saved: false };
  return { used: true, saved: await saveOwnership(trx, write.row) };
}

/** PostgreSQL: the compare-and-set and the insert in one statement (one round trip instead of two). */
async function useAndSave(trx: Executor, write: OwnershipWrite): Promise<{ used: boolean; saved: boolean }> {
  const r = write.row;
  const { rows } = await sql<{ used: boolean; saved: boolean }>`
    with used as (
      update challenges set used_at = ${write.now} where id = ${write.challengeId} and used_at is null and expires_at > ${write.now} returning id
    ), saved as (
      insert into ownerships (verification_id, status, chain, wallet_address, token_id, request_id, verified_at)
      select ${r.verification_id}::text, ${r.status}::text, ${r.chain}::text, ${r.wallet_address}::text, ${r.token_id}::text, ${r.request_id}::text, ${r.verified_at}::bigint from used
      on conflict (verification_id) do nothing returning verification_id
    )
    select exists (select 1 from used) as used, exists (select 1 from saved) as saved`.execute(trx);
  return rows[0]!;
}
